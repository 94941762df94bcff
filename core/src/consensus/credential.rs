//! The four bearer credentials and the `Authorization` headers they build.
//!
//! | Type | Source | Header |
//! | --- | --- | --- |
//! | [`FragmentSecret`] | invite URL fragment | `Consensus-Invite` (exchange only) |
//! | [`EmailProof`] | private invitation email | none: goes into the claim body |
//! | [`SessionToken`] | exchange response | `Consensus-Session` (claim only) |
//! | [`ParticipantToken`] | claim response | `Consensus-Participant` (room, events, artifact) |
//!
//! Each is its own type, so one can never be passed where another is expected. `Debug` and
//! `Display` print `<redacted>`, never the value; errors carry only `&'static str` names.
//! An [`Authorization`] header can be built only from a [`Bearer`] type, and the scheme
//! comes from that type. The stored bytes are overwritten on drop (best effort: safe Rust
//! cannot rule out copies the compiler made).
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::consensus::credential::{Authorization, ParticipantToken};
//!
//! let token = ParticipantToken::new("cp_abc123")?;
//! assert_eq!(format!("{token:?}"), "ParticipantToken(<redacted>)");
//! let header = Authorization::from(&token);
//! let mut buf = [0u8; 64];
//! let n = header.write_value(&mut buf)?;
//! assert_eq!(&buf[..n], b"Consensus-Participant cp_abc123");
//! assert_eq!(format!("{header:?}"), "Authorization(Consensus-Participant <redacted>)");
//! # Ok(())
//! # }
//! ```
//!
//! The email proof has no header at all:
//!
//! ```compile_fail
//! use concordia_core::consensus::credential::{Authorization, EmailProof};
//! let proof = EmailProof::new("ep_1").unwrap();
//! let _ = Authorization::from(&proof); // EmailProof is not a Bearer
//! ```
//!
//! and a participant token is not a session token:
//!
//! ```compile_fail
//! use concordia_core::consensus::credential::{Authorization, ParticipantToken};
//! use concordia_core::time::Timestamp;
//! let token = ParticipantToken::new("cp_1").unwrap();
//! let _ = Authorization::session(&token, Timestamp::from_unix(0));
//! ```

use core::fmt;

use crate::error::{Error, Result};
use crate::time::Timestamp;

/// Longest fragment secret or email proof accepted (bytes).
pub const MAX_SECRET_LEN: usize = 512;
/// Longest session or participant token accepted (bytes).
pub const MAX_TOKEN_LEN: usize = 1024;
/// The longest a session token may live (20 minutes), counted from when it was received.
pub const MAX_SESSION_SECONDS: i64 = 20 * 60;

mod sealed {
    pub trait Sealed {}
}

/// A credential that travels in an `Authorization` header with its own scheme.
pub trait Bearer: sealed::Sealed {
    /// The header scheme (`Consensus-Invite`, `Consensus-Session`, `Consensus-Participant`).
    const SCHEME: &'static str;
    /// The credential text, for the header only.
    #[doc(hidden)]
    fn header_credential(&self) -> &str;
}

fn store<const N: usize>(value: &str) -> Result<heapless::String<N>> {
    let mut s = heapless::String::new();
    s.push_str(value).map_err(|_| Error::InvalidArgument("credential too long"))?;
    Ok(s)
}

/// Overwrites a string's bytes with volatile writes (`zeroize`), then empties it.
pub(crate) fn wipe<const N: usize>(s: &mut heapless::String<N>) {
    zeroize::Zeroize::zeroize(s.as_mut_str());
    s.clear();
}

/// A header-safe token: visible ASCII without `,`, `"` or `\`.
fn token_chars(value: &str) -> bool {
    !value.is_empty() && value.bytes().all(|b| b.is_ascii_graphic() && !matches!(b, b',' | b'"' | b'\\'))
}

/// A base64url text (no padding) that decodes canonically.
pub(crate) fn is_base64url(value: &str) -> bool {
    let mut buf = [0u8; MAX_SECRET_LEN];
    !value.is_empty()
        && value.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && crate::encoding::decode_base64url(value.as_bytes(), &mut buf).is_ok()
}

macro_rules! credential {
    ($(#[$doc:meta])* $name:ident, $cap:expr $(, $field:ident: $ty:ty)*) => {
        $(#[$doc])*
        pub struct $name {
            value: heapless::String<{ $cap }>,
            $($field: $ty,)*
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!(stringify!($name), "(<redacted>)"))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("<redacted>")
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                wipe(&mut self.value);
            }
        }

        impl PartialEq for $name {
            /// Constant-time comparison of the values.
            fn eq(&self, other: &Self) -> bool {
                let (a, b) = (self.value.as_bytes(), other.value.as_bytes());
                a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
            }
        }

        impl Eq for $name {}
    };
}

credential!(
    /// The secret in the invite URL fragment (`#secret=...`): valid for the exchange only.
    FragmentSecret,
    MAX_SECRET_LEN
);
credential!(
    /// The email-only proof from the private invitation email: valid for the claim only.
    EmailProof,
    MAX_SECRET_LEN
);
credential!(
    /// The short-lived `Consensus-Session` token from the exchange: valid for the claim only.
    SessionToken,
    MAX_TOKEN_LEN,
    until: Timestamp
);
credential!(
    /// The durable `Consensus-Participant` token from the claim: room, events and artifact.
    ParticipantToken,
    MAX_TOKEN_LEN
);

impl FragmentSecret {
    /// A fragment secret: non-empty unpadded base64url of at most [`MAX_SECRET_LEN`] bytes.
    ///
    /// # Errors
    /// [`Error::Encoding`]`("fragment secret")` otherwise.
    pub fn new(value: &str) -> Result<Self> {
        if value.len() > MAX_SECRET_LEN || !is_base64url(value) {
            return Err(Error::Encoding("fragment secret"));
        }
        Ok(FragmentSecret { value: store(value)? })
    }
}

impl EmailProof {
    /// An email proof: 1 to [`MAX_SECRET_LEN`] bytes without control characters.
    ///
    /// # Errors
    /// [`Error::Schema`]`("email proof")` otherwise.
    pub fn new(value: &str) -> Result<Self> {
        if value.is_empty() || value.len() > MAX_SECRET_LEN || value.chars().any(char::is_control) {
            return Err(Error::Schema("email proof"));
        }
        Ok(EmailProof { value: store(value)? })
    }

    /// Writes the claim request body `{"emailProof":..,"inbox":..,"runtimeEndpoint":..}`
    /// (canonical JSON) into `out`. `runtime_endpoint` is empty or an `https://` URL.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty inbox or a non-HTTPS runtime endpoint;
    /// [`Error::Limit`] when the body exceeds the venue's 4,096 bytes;
    /// [`Error::BufferTooSmall`] when `out` is too short.
    pub fn write_claim_body(&self, inbox: &str, runtime_endpoint: &str, out: &mut [u8]) -> Result<usize> {
        use crate::jcs::write_plain_str;
        use crate::sink::{Sink, SliceSink};
        if inbox.is_empty() || inbox.chars().any(char::is_control) {
            return Err(Error::InvalidArgument("inbox"));
        }
        if !runtime_endpoint.is_empty() && !runtime_endpoint.starts_with("https://") {
            return Err(Error::InvalidArgument("runtime endpoint must use https"));
        }
        let mut sink = SliceSink::new(out);
        sink.write(b"{\"emailProof\":")?;
        write_plain_str(&self.value, &mut sink)?;
        sink.write(b",\"inbox\":")?;
        write_plain_str(inbox, &mut sink)?;
        sink.write(b",\"runtimeEndpoint\":")?;
        write_plain_str(runtime_endpoint, &mut sink)?;
        sink.write(b"}")?;
        if sink.len() > MAX_CLAIM_BODY {
            return Err(Error::Limit { kind: crate::error::Limit::Size, offset: MAX_CLAIM_BODY });
        }
        sink.finish()
    }
}

/// The venue's limit on the claim request body (bytes).
pub const MAX_CLAIM_BODY: usize = 4096;

impl SessionToken {
    /// A session token (visible ASCII, at most [`MAX_TOKEN_LEN`] bytes) that the venue
    /// said expires at `expires_at`, received at `received_at`. The usable lifetime is
    /// capped at [`MAX_SESSION_SECONDS`] after `received_at` and, when given, at the
    /// invitation's own expiry.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`]`("session token")` for a malformed value.
    pub fn new(
        value: &str,
        received_at: Timestamp,
        expires_at: Timestamp,
        invite_expires: Option<Timestamp>,
    ) -> Result<Self> {
        if value.len() > MAX_TOKEN_LEN || !token_chars(value) {
            return Err(Error::InvalidArgument("session token"));
        }
        let cap = received_at.add_seconds(MAX_SESSION_SECONDS)?;
        let mut until = if expires_at < cap { expires_at } else { cap };
        if let Some(i) = invite_expires {
            if i < until {
                until = i;
            }
        }
        Ok(SessionToken { value: store(value)?, until })
    }

    /// The instant after which the token is no longer used.
    #[must_use]
    pub fn usable_until(&self) -> Timestamp {
        self.until
    }
}

impl ParticipantToken {
    /// A participant token: visible ASCII, at most [`MAX_TOKEN_LEN`] bytes.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`]`("participant token")` for a malformed value.
    pub fn new(value: &str) -> Result<Self> {
        if value.len() > MAX_TOKEN_LEN || !token_chars(value) {
            return Err(Error::InvalidArgument("participant token"));
        }
        Ok(ParticipantToken { value: store(value)? })
    }
}

impl sealed::Sealed for FragmentSecret {}
impl sealed::Sealed for SessionToken {}
impl sealed::Sealed for ParticipantToken {}

impl Bearer for FragmentSecret {
    const SCHEME: &'static str = "Consensus-Invite";
    fn header_credential(&self) -> &str {
        &self.value
    }
}

impl Bearer for SessionToken {
    const SCHEME: &'static str = "Consensus-Session";
    fn header_credential(&self) -> &str {
        &self.value
    }
}

impl Bearer for ParticipantToken {
    const SCHEME: &'static str = "Consensus-Participant";
    fn header_credential(&self) -> &str {
        &self.value
    }
}

/// An `Authorization` header value `<scheme> <credential>`, built only from a [`Bearer`].
#[derive(Clone, Copy)]
pub struct Authorization<'a> {
    scheme: &'static str,
    credential: &'a str,
}

impl<'a, B: Bearer> From<&'a B> for Authorization<'a> {
    fn from(bearer: &'a B) -> Self {
        Authorization { scheme: B::SCHEME, credential: bearer.header_credential() }
    }
}

impl Authorization<'_> {
    /// The header name.
    pub const NAME: &'static str = "Authorization";

    /// The header for a session token, refused once the token is past its usable life.
    ///
    /// # Errors
    /// [`Error::Temporal`]`("session token expired")` when `now` is past
    /// [`SessionToken::usable_until`].
    pub fn session(token: &SessionToken, now: Timestamp) -> Result<Authorization<'_>> {
        if now >= token.until {
            return Err(Error::Temporal("session token expired"));
        }
        Ok(Authorization::from(token))
    }

    /// The scheme (safe to log).
    #[must_use]
    pub fn scheme(&self) -> &'static str {
        self.scheme
    }

    /// The length of the header value.
    #[must_use]
    pub fn value_len(&self) -> usize {
        self.scheme.len() + 1 + self.credential.len()
    }

    /// Writes the header value into `out`. The output contains the secret: send it, never
    /// log it.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when `out` is shorter than [`Authorization::value_len`].
    pub fn write_value(&self, out: &mut [u8]) -> Result<usize> {
        let needed = self.value_len();
        let dst = out.get_mut(..needed).ok_or(Error::BufferTooSmall { needed })?;
        let (s, rest) = dst.split_at_mut(self.scheme.len());
        s.copy_from_slice(self.scheme.as_bytes());
        if let Some((sp, cred)) = rest.split_first_mut() {
            *sp = b' ';
            cred.copy_from_slice(self.credential.as_bytes());
        }
        Ok(needed)
    }
}

impl fmt::Debug for Authorization<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Authorization({} <redacted>)", self.scheme)
    }
}
