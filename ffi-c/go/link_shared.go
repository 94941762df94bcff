//go:build !concordia_static

package concordia

// The shared library, found through pkg-config (concordia.pc of tools/install-c.sh). The
// line lives in a file of its own so that the build tag changes the package's file list,
// which Go's build cache keys on (a tag inside a #cgo line would not).

/*
#cgo pkg-config: concordia
*/
import "C"
