//go:build concordia_static

package concordia

// With -tags concordia_static: libconcordia.a, found through pkg-config
// (concordia-static.pc of tools/install-c.sh); the program needs no library at run time.

/*
#cgo pkg-config: concordia-static
*/
import "C"
