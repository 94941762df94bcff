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
            // -0.0 becomes 0 and is written `0`, as ECMAScript does.
            return self.integer(f as i64);
        }
        self.ryu.format_finite(f)
    }

    /// Formats `v` in decimal (its ECMAScript form when `|v|` <= 2^53 - 1; beyond, the
    /// exact integer, which a host checks with [`crate::json::integer_literal_value`]).
    pub fn integer(&mut self, v: i64) -> &str {
        core::str::from_utf8(self.integer_bytes(v)).unwrap_or("0")
    }

    /// [`NumberBuf::integer`] as ASCII bytes.
    pub(crate) fn integer_bytes(&mut self, v: i64) -> &[u8] {
        let mut u = v.unsigned_abs();
        let mut i = self.int.len();
        loop {
            i -= 1;
            if let Some(slot) = self.int.get_mut(i) {
                *slot = b'0' + (u % 10) as u8;
            }
            u /= 10;
            if u == 0 {
                break;
            }
        }
        if v < 0 {
            i -= 1;
            if let Some(slot) = self.int.get_mut(i) {
                *slot = b'-';
            }
        }
        self.int.get(i..).unwrap_or(b"0")
    }
}
