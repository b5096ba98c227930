package translate

import _ "embed"

// Shim is shim.h: the qualifiers and device functions generated code uses,
// written with clang's NVPTX builtins, so that clang compiles a kernel's
// Source to PTX without the CUDA toolkit:
//
//	clang++-19 -x cuda --cuda-gpu-arch=sm_90 --cuda-device-only -nocudainc -nocudalib \
//		-ffp-contract=off -Xclang -target-feature -Xclang +ptx80 -include shim.h -S -o out.s in.cu
//
// nvcc needs no shim: a Source is a complete CUDA translation unit.
//
//go:embed shim.h
var Shim []byte
