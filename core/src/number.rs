//! ECMAScript number formatting (`Number::prototype.toString`, RFC 8785 §3.2.2.3), shared by
//! the reader (which checks that a big integer literal is its own ECMAScript form) and the
//! writer.

/// A stack buffer that formats doubles as ECMAScript does.
pub struct NumberBuf {
    int: [u8; 24],
    /// Where [`NumberBuf::short_decimal`]'s text starts in `int`.
    short: usize,
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
        NumberBuf { int: [0; 24], short: 24, ryu: ryu_js::Buffer::new() }
    }

    /// Formats `f`; see [`crate::jcs::write_number`].
    pub fn format(&mut self, f: f64) -> &str {
        core::str::from_utf8(self.format_bytes(f)).unwrap_or("0")
    }

    /// [`NumberBuf::format`] as ASCII bytes (no UTF-8 check of digits written here).
    pub(crate) fn format_bytes(&mut self, f: f64) -> &[u8] {
        if !f.is_finite() {
            return b"null";
        }
        // Integers below 2^53 print as plain decimals in ECMAScript; do them by hand.
        if f.abs() < 9_007_199_254_740_992.0 && (f as i64) as f64 == f {
            // -0.0 becomes 0 and is written `0`, as ECMAScript does.
            return self.integer_bytes(f as i64);
        }
        if self.short_decimal(f) {
            return self.int.get(self.short..).unwrap_or(b"0");
        }
        self.ryu.format_finite(f).as_bytes()
    }

    /// Writes a non-integral `f` into `int[short..]` when it is `n / 10^k` for some
    /// `k` in 1..=4 and `|n| < 2^52`, with the smallest such `k`: the form ECMAScript
    /// prints (`1037.25`, `-0.005`), without the general shortest-digits search.
    ///
    /// Why it is ECMAScript's form: `fl(n / 10^k) == f` (one correctly rounded division of
    /// two exactly representable numbers) says that the decimal `n / 10^k` reads back as
    /// `f`. Any other decimal that reads back as `f` lies within one ulp of it, and
    /// `ulp(f) <= |f| 2^-52 < 10^-k` because `|n| < 2^52`; so every other such decimal has
    /// a digit below `10^-k` (more digits), or equals it. The smallest `k` leaves no
    /// trailing zero. ECMAScript writes such a number (`10^-4 <= |f| < 1e21`) in plain
    /// decimal notation, as here.
    fn short_decimal(&mut self, f: f64) -> bool {
        const POWERS: [(f64, u64); 4] = [(10.0, 10), (100.0, 100), (1000.0, 1000), (10000.0, 10000)];
        for (k, &(p, pi)) in POWERS.iter().enumerate() {
            let t = f * p;
            if t.abs() >= 4_503_599_627_370_496.0 {
                return false;
            }
            // The product is within an ulp of `n`: `n` is its truncation or one further out.
            // Below 2^50 it is within a quarter of `n` (the two roundings each err by at
            // most |n| 2^-53 and |t| 2^-53), so `n` is the nearest of the two and the other
            // need not be tried (a division each). The nearest is found by comparing with
            // the half-way point, with no f64 addition (a soft-float routine on the
            // single-precision FPUs of microcontrollers; the conversion, product and
            // comparison are exact and already in use here).
            let trunc = t as i64;
            let step = if t < 0.0 { -1 } else { 1 };
            let half = (2 * trunc + step) as f64 * 0.5;
            let beyond = if t < 0.0 { t <= half } else { t >= half };
            let (near, far) = if beyond { (trunc + step, trunc) } else { (trunc, trunc + step) };
            let both = t.abs() >= 1_125_899_906_842_624.0;
            for n in [near, far].into_iter().take(if both { 2 } else { 1 }) {
                if n != 0 && n.unsigned_abs() < 1 << 52 && n as f64 / p == f {
                    self.write_decimal(n, k + 1, pi);
                    return true;
                }
            }
        }
        false
    }

    /// `n / 10^digits` (`scale` = `10^digits`, `n` not a multiple of 10) into
    /// `int[short..]`.
    fn write_decimal(&mut self, n: i64, digits: usize, scale: u64) {
        let u = n.unsigned_abs();
        let (mut whole, mut frac) = (u / scale, u % scale);
        let mut i = self.int.len();
        let mut put = |i: &mut usize, b: u8| {
            *i -= 1;
            if let Some(slot) = self.int.get_mut(*i) {
                *slot = b;
            }
        };
        for _ in 0..digits {
            put(&mut i, b'0' + (frac % 10) as u8);
            frac /= 10;
        }
        put(&mut i, b'.');
        loop {
            put(&mut i, b'0' + (whole % 10) as u8);
            whole /= 10;
            if whole == 0 {
                break;
            }
        }
        if n < 0 {
            put(&mut i, b'-');
        }
        self.short = i;
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
