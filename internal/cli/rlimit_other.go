//go:build !unix

package cli

// addressSpaceLimit: no limit is known outside Unix.
func addressSpaceLimit() (limit int64, have bool) { return 0, false }
