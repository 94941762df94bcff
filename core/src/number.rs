//! ECMAScript number formatting (`Number::prototype.toString`, RFC 8785 §3.2.2.3), shared by
//! the reader (which checks that a big integer literal is its own ECMAScript form) and the
//! writer.

/// A stack buffer that formats doubles as ECMAScript does.
pub struct NumberBuf {
    int: [u8; 24],
    ryu: ryu_js::Buffer,
}

impl core::fmt::Debug for NumberBuf {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("NumberBuf")
    }
}

impl Default for NumberBuf {
    fn default() -> Self {
        Self::new()
    }
}

impl NumberBuf {
    /// A new buffer.
    #[must_use]
    pub fn new() -> Self {
        NumberBuf { int: [0; 24], ryu: ryu_js::Buffer::new() }
    }

    /// Formats `f`; see [`crate::jcs::write_number`].
    pub fn format(&mut self, f: f64) -> &str {
        if !f.is_finite() {
            return "null";
        }
        // Integers below 2^53 print as plain decimals in ECMAScript; do them by hand.
        if f.abs() < 9_007_199_254_740_992.0 && (f as i64) as f64 == f {
            let mut v = f.abs() as u64;
            let mut i = self.int.len();
            loop {
                i -= 1;
                if let Some(slot) = self.int.get_mut(i) {
                    *slot = b'0' + (v % 10) as u8;
                }
                v /= 10;
                if v == 0 {
                    break;
                }
            }
            if f < 0.0 {
                i -= 1;
                if let Some(slot) = self.int.get_mut(i) {
                    *slot = b'-';
                }
            }
            return self.int.get(i..).and_then(|s| core::str::from_utf8(s).ok()).unwrap_or("0");
        }
        self.ryu.format_finite(f)
    }
}

