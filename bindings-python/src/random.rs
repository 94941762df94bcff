//! Operating system randomness, drawn in Rust (getrandom: `getrandom(2)` on Linux), never
//! through `os.urandom`: a patched or monkeypatched `os.urandom` cannot make the key
//! generators or the HPKE ephemeral keys repeat (as the C ABI, UniFFI and the CLI draw).

use concordia_host::zeroize::Zeroizing;
use pyo3::exceptions::PyOSError;
use pyo3::PyResult;

/// 32 bytes from the operating system, erased when dropped; `OSError` when it has none.
pub fn os_random() -> PyResult<Zeroizing<[u8; 32]>> {
    let mut b = Zeroizing::new([0u8; 32]);
    getrandom::fill(&mut *b)
        .map_err(|e| PyOSError::new_err(format!("operating system randomness unavailable: {e}")))?;
    Ok(b)
}
