//! `uniffi-bindgen`: the bindings generator of the pinned uniffi version (Swift, Kotlin,
//! Python), run against the built library (library mode: no UDL).
fn main() {
    uniffi::uniffi_bindgen_main()
}
