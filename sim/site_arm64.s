#include "textflag.h"

// The arm64 twin of site_amd64.s: R29 is the frame pointer, 0(R29) the
// caller's frame pointer and 8(R29) the return address into the caller.
// NOFRAME keeps R29 and the link register as the caller left them.

// func framePCs(pcs *[maxFrames]uintptr, max int) int
TEXT ·framePCs(SB),NOSPLIT|NOFRAME,$0-24
	MOVD	pcs+0(FP), R0
	MOVD	max+8(FP), R1
	MOVD	R29, R2
	MOVD	$0, R3
loop:
	CMP	R1, R3
	BGE	done
	CBZ	R2, done
	MOVD	8(R2), R4
	MOVD.P	R4, 8(R0)
	MOVD	0(R2), R2
	ADD	$1, R3
	B	loop
done:
	MOVD	R3, ret+16(FP)
	RET

// func callerPCs01() (pc0, pc1 uintptr)
//
// For a caller F (with a frame) called by G: pc0 is F's return address
// into G, pc1 G's return address into its caller.
TEXT ·callerPCs01(SB),NOSPLIT|NOFRAME,$0-16
	MOVD	$0, R2
	MOVD	8(R29), R0
	MOVD	0(R29), R1
	CBZ	R1, done01
	MOVD	8(R1), R2
done01:
	MOVD	R0, pc0+0(FP)
	MOVD	R2, pc1+8(FP)
	RET

// func callerPCs12() (pc1, pc2 uintptr)
//
// For a caller F (with a frame) called by G, itself called by H: pc1 is G's
// return address into H, pc2 H's return address into its caller.
TEXT ·callerPCs12(SB),NOSPLIT|NOFRAME,$0-16
	MOVD	$0, R0
	MOVD	$0, R2
	MOVD	0(R29), R1
	CBZ	R1, done12
	MOVD	8(R1), R0
	MOVD	0(R1), R1
	CBZ	R1, done12
	MOVD	8(R1), R2
done12:
	MOVD	R0, pc1+0(FP)
	MOVD	R2, pc2+8(FP)
	RET
