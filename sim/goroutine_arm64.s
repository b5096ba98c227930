#include "textflag.h"

// func curG() uintptr
//
// The running goroutine's g, which the runtime keeps in R28 (g) on arm64.
TEXT ·curG(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	g, R0
	MOVD	R0, ret+0(FP)
	RET
