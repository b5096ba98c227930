#include "textflag.h"

// func framePCs(pcs *[maxFrames]uintptr, max int) int
//
// Walks the frame-pointer chain starting at the caller's frame and stores up
// to max (at most maxFrames) return addresses. The function has no frame of its own, so BP
// still holds the caller's frame pointer: 8(BP) is the caller's return
// address and 0(BP) the next frame pointer. Go keeps this chain valid and
// ends it with 0 (the execution tracer relies on the same walk).
TEXT ·framePCs(SB),NOSPLIT,$0-24
	MOVQ pcs+0(FP), DI
	MOVQ max+8(FP), SI
	MOVQ BP, AX
	XORQ CX, CX
loop:
	CMPQ CX, SI
	JGE  done
	TESTQ AX, AX
	JZ   done
	MOVQ 8(AX), DX
	MOVQ DX, (DI)(CX*8)
	MOVQ 0(AX), AX
	INCQ CX
	JMP  loop
done:
	MOVQ CX, ret+16(FP)
	RET

// func callerPCs01() (pc0, pc1 uintptr)
//
// For a caller F (with a frame) called by G: pc0 is F's return address
// into G, pc1 G's return address into its caller.
TEXT ·callerPCs01(SB),NOSPLIT,$0-16
	XORQ DX, DX
	MOVQ 8(BP), CX
	MOVQ 0(BP), AX
	TESTQ AX, AX
	JZ   done01
	MOVQ 8(AX), DX
done01:
	MOVQ CX, pc0+0(FP)
	MOVQ DX, pc1+8(FP)
	RET

// func callerPCs12() (pc1, pc2 uintptr)
//
// For a caller F (with a frame) called by G, itself called by H: pc1 is G's
// return address into H, pc2 H's return address into its caller.
TEXT ·callerPCs12(SB),NOSPLIT,$0-16
	XORQ CX, CX
	XORQ DX, DX
	MOVQ 0(BP), AX
	TESTQ AX, AX
	JZ   done12
	MOVQ 8(AX), CX
	MOVQ 0(AX), AX
	TESTQ AX, AX
	JZ   done12
	MOVQ 8(AX), DX
done12:
	MOVQ CX, pc1+0(FP)
	MOVQ DX, pc2+8(FP)
	RET
