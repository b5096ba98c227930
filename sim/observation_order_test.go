package sim_test

// PTX's observation order: a strong read that reads a strong write comes
// after it, and so does everything after the read in the reader's program
// order (causality order). A poller that saw the flag set may read or
// reset the flag with plain accesses; a write it did not see still races
// with them.

import (
	"fmt"
	"testing"

	"github.com/gpusim/gpusim/sim"
)

// pollKinds are the strong reads a consumer may poll a flag with.
var pollKinds = map[string]func(t *sim.Thread, flag *sim.Buffer[int32]) int32{
	"volatile": func(t *sim.Thread, flag *sim.Buffer[int32]) int32 { return flag.LoadVolatile(t, 0) },
	"relaxed": func(t *sim.Thread, flag *sim.Buffer[int32]) int32 {
		return sim.NewAtomicRef(flag, 0, sim.ThreadScopeDevice).Load(t, sim.MemoryOrderRelaxed)
	},
	"acquire": func(t *sim.Thread, flag *sim.Buffer[int32]) int32 {
		return sim.NewAtomicRef(flag, 0, sim.ThreadScopeDevice).Load(t, sim.MemoryOrderAcquire)
	},
	"atomicAdd 0": func(t *sim.Thread, flag *sim.Buffer[int32]) int32 { return sim.AtomicAdd(t, flag, 0, 0) },
}

// flagConsumer: block 0 publishes data and sets the flag (fence, atomicExch);
// block 1 polls the flag (unless poll is nil), fences, reads the data, then
// re-reads the flag and resets it with plain accesses. setters is how many
// blocks after block 1 set the flag too, which block 1 never saw.
func flagConsumer(data, flag, out *sim.Buffer[int32], poll func(*sim.Thread, *sim.Buffer[int32]) int32) sim.Kernel {
	return func(t *sim.Thread) {
		if t.BlockIdx.X != 1 {
			data.Store(t, int(t.BlockIdx.X), 5)
			t.ThreadFence()
			sim.AtomicExch(t, flag, 0, 2) //@setFlag
			return
		}
		if poll != nil {
			for poll(t, flag) == 0 {
			}
			t.ThreadFence()
			out.Store(t, 0, data.Load(t, 0))
		}
		out.Store(t, 1, flag.Load(t, 0)) //@rereadFlag
		flag.Store(t, 0, 0)              //@resetFlag
	}
}

func TestNoRacePollerRereadsAndResetsFlagPlainly(t *testing.T) {
	t.Parallel()
	for name, poll := range pollKinds {
		for sname, o := range schedules() {
			t.Run(name+"/"+sname, func(t *testing.T) {
				dev := sim.NewDevice(sim.H100)
				data := zeroed[int32](t, dev, "data", 3)
				flag := zeroed[int32](t, dev, "flag", 1)
				out := zeroed[int32](t, dev, "out", 2)
				wantClean(t, exec(t, dev, lin(2, 1, o), flagConsumer(data, flag, out, poll)))
				if got := out.ToHost(); got[0] != 5 || got[1] != 2 {
					t.Fatalf("out = %v, want [5 2]", got)
				}
			})
		}
	}
}

// Without the poll, nothing orders block 0's atomicExch with block 1's
// plain re-read and reset of the flag.
func TestRacePlainFlagReadWithoutPoll(t *testing.T) {
	t.Parallel()
	for sname, o := range schedules() {
		t.Run(sname, func(t *testing.T) {
			dev := sim.NewDevice(sim.H100)
			data := zeroed[int32](t, dev, "data", 3)
			flag := zeroed[int32](t, dev, "flag", 1)
			out := zeroed[int32](t, dev, "out", 2)
			r := exec(t, dev, lin(2, 1, o), flagConsumer(data, flag, out, nil))
			wantRace(t, r, sim.GlobalSpace, "flag", at(t, "setFlag"), at(t, "rereadFlag"))
			onlyKinds(t, r, sim.DataRace)
		})
	}
}

// A third block sets the flag too: block 1 saw one of the two writes at
// most, and its plain accesses race with the other.
func TestRacePollerResetsFlagAnotherBlockSets(t *testing.T) {
	t.Parallel()
	for name, poll := range pollKinds {
		for sname, o := range schedules() {
			t.Run(fmt.Sprint(name, "/", sname), func(t *testing.T) {
				dev := sim.NewDevice(sim.H100)
				data := zeroed[int32](t, dev, "data", 3)
				flag := zeroed[int32](t, dev, "flag", 1)
				out := zeroed[int32](t, dev, "out", 2)
				r := exec(t, dev, lin(3, 1, o), flagConsumer(data, flag, out, poll))
				f := r.Of(sim.DataRace)
				if len(f) == 0 {
					t.Fatalf("want a race of block 1's plain flag accesses with a setter it did not see; report:\n%v", r)
				}
				for _, x := range f {
					if x.Memory != "flag" {
						t.Errorf("race on %s, want only on flag:\n%v", x.Memory, x)
					}
				}
				onlyKinds(t, r, sim.DataRace)
			})
		}
	}
}

// blockScopeAfterPoll: block 0 sets the flag with atomicExch (device
// scope); block 1 polls it with a volatile load (unless poll is false),
// then reads and resets it through a block-scope atomic_ref. Block-scope
// operations of different blocks are not morally strong, so only order
// keeps block 1's accesses from racing with block 0's exchange: the poll
// that read the exchange puts it before them (observation order, then
// program order: causality order).
func blockScopeAfterPoll(flag, out *sim.Buffer[int32], poll bool) sim.Kernel {
	return func(t *sim.Thread) {
		if t.BlockIdx.X == 0 {
			sim.AtomicExch(t, flag, 0, 2) //@blockPollSet
			return
		}
		if poll {
			for flag.LoadVolatile(t, 0) != 2 {
				t.Nanosleep(100)
			}
		}
		ref := sim.NewAtomicRef(flag, 0, sim.ThreadScopeBlock)
		out.Store(t, 0, ref.Load(t, sim.MemoryOrderRelaxed)) //@blockPollLoad
		ref.Store(t, 0, sim.MemoryOrderRelaxed)              //@blockPollReset
	}
}

// A poller's block-scope accesses of the flag after it saw block 0's
// exchange: ordered after it, no race (sim used to test the exchange's
// record against a strong access without asking whether the thread had
// seen it, as it asks for a plain one: found by the differential fuzzer).
func TestNoRaceBlockScopeAccessAfterPollSawWrite(t *testing.T) {
	t.Parallel()
	for sname, o := range schedules() {
		t.Run(sname, func(t *testing.T) {
			dev := sim.NewDevice(sim.H100)
			flag := zeroed[int32](t, dev, "flag", 1)
			out := zeroed[int32](t, dev, "out", 1)
			wantClean(t, exec(t, dev, lin(2, 1, o), blockScopeAfterPoll(flag, out, true)))
			if got := out.ToHost()[0]; got != 2 {
				t.Fatalf("out = %d, want 2", got)
			}
		})
	}
}

// Without the poll, block 1's block-scope accesses and block 0's exchange
// are neither ordered nor morally strong: a race, whichever runs first.
func TestRaceBlockScopeAccessWithoutPoll(t *testing.T) {
	t.Parallel()
	for sname, o := range schedules() {
		t.Run(sname, func(t *testing.T) {
			dev := sim.NewDevice(sim.H100)
			flag := zeroed[int32](t, dev, "flag", 1)
			out := zeroed[int32](t, dev, "out", 1)
			r := exec(t, dev, lin(2, 1, o), blockScopeAfterPoll(flag, out, false))
			f := r.Of(sim.DataRace)
			if len(f) == 0 {
				t.Fatalf("want a race of block 1's block-scope accesses with block 0's exchange; report:\n%v", r)
			}
			set := at(t, "blockPollSet")
			for _, x := range f {
				if x.Memory != "flag" || x.Current.Site != set && x.Previous.Site != set {
					t.Errorf("want races with the exchange on flag only:\n%v", x)
				}
			}
			onlyKinds(t, r, sim.DataRace)
		})
	}
}

// storeThenAdd: block 0 stores the flag (atomic_ref, relaxed) and, once
// block 1 has seen that store (ack), adds to it (atomicAdd) and says so
// (done, relaxed: it releases nothing). Block 1 polls the flag until it
// sees the store, acknowledges, waits for done and reads the flag plainly.
// The add replaced the store the poll saw, and keeps it in a read slot as
// the start of its chain; the plain read comes after the store (observation
// order) but races with the add, which block 1 never saw.
func storeThenAdd(flag, ack, done, out *sim.Buffer[int32]) sim.Kernel {
	return func(t *sim.Thread) {
		f := sim.NewAtomicRef(flag, 0, sim.ThreadScopeDevice)
		a := sim.NewAtomicRef(ack, 0, sim.ThreadScopeDevice)
		d := sim.NewAtomicRef(done, 0, sim.ThreadScopeDevice)
		if t.BlockIdx.X == 0 {
			f.Store(t, 1, sim.MemoryOrderRelaxed) //@seenChainStore
			for a.Load(t, sim.MemoryOrderRelaxed) == 0 {
			}
			sim.AtomicAdd(t, flag, 0, 1) //@unseenChainAdd
			d.Store(t, 1, sim.MemoryOrderRelaxed)
			return
		}
		for flag.LoadVolatile(t, 0) != 1 {
		}
		a.Store(t, 1, sim.MemoryOrderRelaxed)
		for d.Load(t, sim.MemoryOrderRelaxed) == 0 {
		}
		out.Store(t, 0, flag.Load(t, 0)) //@readAfterChain
	}
}

// The race is the plain read's with the add, not with the store the poll
// saw: a write kept in a read slot as its chain's start is still the write
// the poll saw (it was reported as the store while the kept copy's mark
// hid it from the thread's observations).
func TestRacePlainReadAfterSeenStoreWithUnseenAdd(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		flag := zeroed[int32](t, dev, "flag", 1)
		ack := zeroed[int32](t, dev, "ack", 1)
		done := zeroed[int32](t, dev, "done", 1)
		out := zeroed[int32](t, dev, "out", 1)
		r := exec(t, dev, lin(2, 1, o), storeThenAdd(flag, ack, done, out))
		wantRace(t, r, sim.GlobalSpace, "flag", at(t, "unseenChainAdd"), at(t, "readAfterChain"))
		for _, f := range r.Of(sim.DataRace) {
			if f.Current.Site == at(t, "seenChainStore") || f.Previous.Site == at(t, "seenChainStore") {
				t.Errorf("the store block 1 saw is reported:\n%v", r)
			}
		}
		if got := out.ToHost()[0]; got != 2 {
			t.Errorf("out = %d, want 2", got)
		}
	})
}

func TestNoRacePlainReadAfterCASReadStoreAndOwnStore(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		flag := zeroed[int32](t, dev, "flag", 1)
		out := zeroed[int32](t, dev, "out", 1)
		wantClean(t, exec(t, dev, lin(2, 1, o), chainThenOwnStore(flag, out, 0, "cas")))
		if got := out.ToHost()[0]; got != 7 {
			t.Errorf("out = %d, want 7", got)
		}
	})
}

func TestRacePlainPollOfAtomicStore(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		flag := zeroed[int32](t, dev, "flag", 1)
		out := zeroed[int32](t, dev, "out", 1)
		r := exec(t, dev, lin(2, 1, o), chainThenOwnStore(flag, out, 0, "plain"))
		wantRace(t, r, sim.GlobalSpace, "flag", at(t, "chainStartStore"), at(t, "plainPollOfChain"))
	})
}

// chainThenOwnStore: block 0 stores the flag (atomic_ref, relaxed) and
// adds one to it adds times, a chain of read-modify-writes that the store
// starts; block 1 waits for the chain's last value with a CAS loop (poll
// cas), an atomic_ref load (poll load) or plain loads (poll plain), ends
// the chain with a store of its own and reads the flag plainly. A CAS that
// replaces the store, or a strong read of the chain's last add, reads
// through the chain to the store, which then comes before everything
// block 1 does after it (observation order), also once block 1's store has
// replaced the chain in the cell. The flag ends as 7+adds.
func chainThenOwnStore(flag, out *sim.Buffer[int32], adds int, poll string) sim.Kernel {
	return func(t *sim.Thread) {
		f := sim.NewAtomicRef(flag, 0, sim.ThreadScopeDevice)
		if t.BlockIdx.X == 0 {
			f.Store(t, 5, sim.MemoryOrderRelaxed) //@chainStartStore
			for range adds {
				sim.AtomicAdd(t, flag, 0, 1)
			}
			return
		}
		want := int32(5 + adds)
		switch poll {
		case "cas":
			for sim.AtomicCAS(t, flag, 0, want, want+1) != want {
			}
		case "load":
			for f.Load(t, sim.MemoryOrderRelaxed) != want {
			}
		default:
			for flag.Load(t, 0) != want { //@plainPollOfChain
			}
		}
		f.Store(t, want+2, sim.MemoryOrderRelaxed)
		out.Store(t, 0, flag.Load(t, 0))
	}
}

func TestNoRacePlainReadAfterReadingChainAndOwnStore(t *testing.T) {
	t.Parallel()
	for _, poll := range []string{"cas", "load"} {
		t.Run(poll, func(t *testing.T) {
			eachSchedule(t, func(t *testing.T, o sim.Options) {
				dev := sim.NewDevice(sim.H100)
				flag := zeroed[int32](t, dev, "flag", 1)
				out := zeroed[int32](t, dev, "out", 1)
				wantClean(t, exec(t, dev, lin(2, 1, o), chainThenOwnStore(flag, out, 1, poll)))
				if got := out.ToHost()[0]; got != 8 {
					t.Errorf("out = %d, want 8", got)
				}
			})
		})
	}
}

func TestRacePlainPollOfChainFromStore(t *testing.T) {
	t.Parallel()
	eachSchedule(t, func(t *testing.T, o sim.Options) {
		dev := sim.NewDevice(sim.H100)
		flag := zeroed[int32](t, dev, "flag", 1)
		out := zeroed[int32](t, dev, "out", 1)
		r := exec(t, dev, lin(2, 1, o), chainThenOwnStore(flag, out, 1, "plain"))
		wantRace(t, r, sim.GlobalSpace, "flag", at(t, "chainStartStore"), at(t, "plainPollOfChain"))
	})
}
