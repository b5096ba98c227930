package sim

// WithEpochBudgetForTest sets the bytes of saved chunks a speculative epoch
// may hold (speculate.go), so that small launches run many epochs.
func WithEpochBudgetForTest(o Options, bytes int) Options {
	o.specBudget = bytes
	return o
}

// CoroutinesMadeForTest is the number of coroutines d's launches made.
func CoroutinesMadeForTest(d *Device) int64 { return d.corosMade.Load() }
