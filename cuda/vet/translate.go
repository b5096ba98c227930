package vet

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gpusim/gpusim/cuda/translate"
)

// checkTranslate runs the CUDA translator over the package's kernels and
// reports each construct it refuses, at its position, with its message.
// done holds the positions the capture check has already reported: a write
// both checks refuse is reported once, by the capture check.
func checkTranslate(pass *analysis.Pass, done map[token.Pos]bool) {
	if pass.Pkg.Path() == simPath || !importsSim(pass) {
		return
	}
	// The translator takes the package's non-test files: kernels are
	// translated from the code go build compiles.
	var files []*ast.File
	byName := map[string]*token.File{}
	for _, f := range pass.Files {
		tf := pass.Fset.File(f.Pos())
		if tf == nil || strings.HasSuffix(tf.Name(), "_test.go") {
			continue
		}
		files = append(files, f)
		byName[tf.Name()] = tf
	}
	if len(files) == 0 {
		return
	}
	res, err := translateSafely(pass, files)
	if err != nil {
		pass.Report(analysis.Diagnostic{Pos: files[0].Package, Category: "translate", Message: err.Error()})
		return
	}
	for _, d := range res.Diagnostics {
		pos, ok := posOf(byName, d.Pos)
		if !ok {
			// Not in one of the package's files (a //line directive,
			// say): report it at the package clause, position included.
			pass.Report(analysis.Diagnostic{
				Pos: files[0].Package, Category: "translate",
				Message: fmt.Sprintf("%s: cannot translate to CUDA: %s", d.Pos, d.Message),
			})
			continue
		}
		if done[pos] {
			continue
		}
		pass.Report(analysis.Diagnostic{Pos: pos, Category: "translate", Message: "cannot translate to CUDA: " + d.Message})
	}
}

// importsSim reports whether the package imports the sim package, without
// which it has no kernels.
func importsSim(pass *analysis.Pass) bool {
	for _, p := range pass.Pkg.Imports() {
		if p.Path() == simPath {
			return true
		}
	}
	return false
}

// translateSafely runs the translator, turning a crash into an error that is
// reported (a translator bug must not take go vet down with it).
func translateSafely(pass *analysis.Pass, files []*ast.File) (res *translate.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the CUDA translator failed on this package (a translator bug; please report it): %v", r)
		}
	}()
	return translate.Translate(pass.Fset, files, pass.Pkg, pass.TypesInfo), nil
}

// posOf is the token.Pos of a position in one of the package's files.
func posOf(files map[string]*token.File, p token.Position) (token.Pos, bool) {
	tf := files[p.Filename]
	if tf == nil || p.Line < 1 || p.Line > tf.LineCount() {
		return token.NoPos, false
	}
	start := tf.LineStart(p.Line)
	off := tf.Offset(start) + max(p.Column-1, 0)
	if off > tf.Size() {
		return token.NoPos, false
	}
	return tf.Pos(off), true
}
