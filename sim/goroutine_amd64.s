#include "textflag.h"

// func curG() uintptr
//
// The running goroutine's g, which the runtime keeps in thread-local
// storage on amd64 ((TLS) is the assembler's name for that slot).
TEXT ·curG(SB),NOSPLIT,$0-8
	MOVQ (TLS), AX
	MOVQ AX, ret+0(FP)
	RET
