module concordia.example/ffi-go

go 1.19
