//! Gives the shared library its SONAME on ELF platforms, from the crate version, so that
//! programs linked against `libconcordia.so` record `libconcordia.so.<ABI version>` and an
//! incompatible release is never loaded in its place (ffi-c/README.md, "ABI policy").
//!
//! The ABI version follows Cargo's reading of semver, as cargo-c does: `0.0.z` for 0.0.z,
//! `0.y` for 0.y.z (a new 0.y may break the ABI), `x` from 1.0.0 on. `tools/install-c.sh`
//! reads the SONAME back from the built library to name the installed file and its links.
//! The rlib and the staticlib are untouched (`rustc-cdylib-link-arg` reaches the cdylib only).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let elf = matches!(
        std::env::var("CARGO_CFG_TARGET_OS").as_deref(),
        Ok("linux" | "freebsd" | "netbsd" | "openbsd" | "dragonfly")
    );
    if !elf {
        // macOS (install_name), Windows (import library), Android (unversioned .so in an
        // APK) and the Solaris linker (-h) have other conventions; tools/install-c.sh is for
        // Linux and the BSDs.
        return;
    }
    let abi = match (env!("CARGO_PKG_VERSION_MAJOR"), env!("CARGO_PKG_VERSION_MINOR"), env!("CARGO_PKG_VERSION_PATCH"))
    {
        ("0", "0", patch) => format!("0.0.{patch}"),
        ("0", minor, _) => format!("0.{minor}"),
        (major, _, _) => major.to_string(),
    };
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libconcordia.so.{abi}");
}
