package sim

// WithEpochBudgetForTest sets the bytes of saved chunks a speculative epoch
// may hold (speculate.go), so that small launches run many epochs.
func WithEpochBudgetForTest(o Options, bytes int) Options {
	o.specBudget = bytes
	return o
}
