module github.com/concordia-rs/concordia-rs/ffi-c/go

go 1.19
