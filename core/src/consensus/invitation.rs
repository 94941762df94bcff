//! The private invitation email: extraction, validation and the exchange request.
//!
//! The plain-text email carries one JSON object between the lines
//! `---BEGIN CONSENSUS INVITATION V1---` and `---END CONSENSUS INVITATION V1---`.
//! [`Invitation::parse`] extracts it (each marker must occur exactly once, in that order),
//! checks its shape strictly (the schema's members and no others), and then evaluates the
//! independent checks of [`Checks`]:
//!
//! * `https`: `invite_uri` and `agent_exchange.href` use HTTPS;
//! * `origin`: both start with exactly the configured origin (default
//!   `https://consensus.md`) followed by `/`: no port, user info or look-alike host;
//! * `no_query`: neither URL has a query string (a secret must never travel in one), and
//!   the exchange URL has no fragment;
//! * `uuids`: the envelope `invitation_id`, the invite path `/i/<uuid>` and the exchange
//!   path `/api/v1/agent/invitations/<uuid>/exchange` are identical;
//! * `secret`: the invite fragment is exactly `secret=<base64url>`.
//!
//! Credentials and the exchange request are only available when every check passed. The
//! fragment is never put into a URL: [`ExchangeRequest`] carries it in the
//! `Authorization: Consensus-Invite` header only.

use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::json::{self, Kind, Node, Value};

use super::credential::{Authorization, EmailProof, FragmentSecret, MAX_SECRET_LEN};
use super::DEFAULT_ORIGIN;

/// The line that opens the invitation block.
pub const BEGIN_MARKER: &str = "---BEGIN CONSENSUS INVITATION V1---";
/// The line that closes the invitation block.
pub const END_MARKER: &str = "---END CONSENSUS INVITATION V1---";
/// The `schema` member's required value.
pub const SCHEMA: &str = "https://consensus.md/schemas/invitation-email/v1";
/// The longest email [`Invitation::parse`] reads (bytes).
pub const MAX_EMAIL: usize = 256 * 1024;
/// The longest invitation JSON block (bytes).
pub const MAX_BLOCK: usize = 8 * 1024;
/// The longest URL kept (bytes).
pub const MAX_URL: usize = 512;
/// The venue's limit on the exchange request body (bytes).
pub const MAX_EXCHANGE_BODY: usize = 1024;

const NODES: usize = 64;

/// A validated origin: `https://host[:port]`, no path, user info, query or fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin<'a>(&'a str);

impl<'a> Origin<'a> {
    /// `https://consensus.md`.
    pub const DEFAULT: Origin<'static> = Origin(DEFAULT_ORIGIN);

    /// Validates an origin.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`]`("origin")` when `text` is not `https://` followed by a
    /// non-empty host (letters, digits, `.`, `-`, an optional `:port`).
    pub fn new(text: &'a str) -> Result<Self> {
        let host = text.strip_prefix("https://").ok_or(Error::InvalidArgument("origin"))?;
        let (name, port) = match host.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (host, None),
        };
        let name_ok = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
        let port_ok = port.is_none_or(|p| (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()));
        if name_ok && port_ok {
            Ok(Origin(text))
        } else {
            Err(Error::InvalidArgument("origin"))
        }
    }

    /// The origin text.
    #[must_use]
    pub fn as_str(&self) -> &'a str {
        self.0
    }
}

/// Which invitation checks passed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    /// Both URLs use HTTPS.
    pub https: bool,
    /// Both URLs have exactly the configured origin.
    pub origin: bool,
    /// No query string in either URL, no fragment in the exchange URL.
    pub no_query: bool,
    /// Envelope, invite-path and exchange-path UUIDs are identical.
    pub uuids: bool,
    /// The invite fragment is `secret=<valid base64url>`.
    pub secret: bool,
}

impl Checks {
    /// The checks by name, in evaluation order.
    #[must_use]
    pub fn named(&self) -> [(&'static str, bool); 5] {
        [
            ("https", self.https),
            ("origin", self.origin),
            ("no_query", self.no_query),
            ("uuids", self.uuids),
            ("secret", self.secret),
        ]
    }

    /// True when every check passed.
    #[must_use]
    pub fn all(&self) -> bool {
        self.named().iter().all(|(_, ok)| *ok)
    }

    /// The error for the first failed check.
    ///
    /// # Errors
    /// [`Error::Binding`] for HTTPS, origin and UUID failures, [`Error::Privacy`] for a
    /// query string, [`Error::Encoding`] for the fragment.
    pub fn result(&self) -> Result<()> {
        if !self.https {
            Err(Error::Binding("invitation URL is not https"))
        } else if !self.origin {
            Err(Error::Binding("invitation URL origin"))
        } else if !self.no_query {
            Err(Error::Privacy("invitation URL has a query string"))
        } else if !self.uuids {
            Err(Error::Binding("invitation UUIDs differ"))
        } else if !self.secret {
            Err(Error::Encoding("invitation fragment secret"))
        } else {
            Ok(())
        }
    }
}

/// A parsed invitation. Credentials are handed out only when [`Checks::all`] holds.
#[derive(Debug)]
pub struct Invitation {
    id: heapless::String<36>,
    exchange_href: heapless::String<MAX_URL>,
    secret: Option<FragmentSecret>,
    proof: EmailProof,
    checks: Checks,
}

/// The block between the markers.
///
/// # Errors
/// [`Error::Schema`]`("invitation markers")` when a marker is missing, repeated or out of
/// order; [`Error::Limit`] for a block over [`MAX_BLOCK`] bytes.
pub fn extract_block(email: &[u8]) -> Result<&[u8]> {
    let bad = Error::Schema("invitation markers");
    let (begin, end) = (BEGIN_MARKER.as_bytes(), END_MARKER.as_bytes());
    let b = find(email, begin).ok_or(bad)?;
    let start = b + begin.len();
    let rest = email.get(start..).ok_or(bad)?;
    let e = find(rest, end).ok_or(bad)?;
    let after = rest.get(e + end.len()..).unwrap_or_default();
    if find(rest, begin).is_some()
        || find(after, end).is_some()
        || find(email.get(..b).unwrap_or_default(), end).is_some()
    {
        return Err(bad);
    }
    if e > MAX_BLOCK {
        return Err(Error::Limit { kind: crate::error::Limit::Size, offset: start + MAX_BLOCK });
    }
    rest.get(..e).ok_or(bad)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Decodes a string member into `buf` (which the caller erases: the invite URL and the
/// email proof are secrets).
fn text<'b>(v: Option<Value<'_>>, what: &'static str, buf: &'b mut [u8]) -> Result<&'b str> {
    let s = v.and_then(|v| v.as_str()).ok_or(Error::Schema(what))?;
    s.decode_into(buf).map_err(|_| Error::Schema(what))
}

/// Decodes a string member into a fixed-capacity string (for members that hold no secret).
fn owned<const N: usize>(v: Option<Value<'_>>, what: &'static str) -> Result<heapless::String<N>> {
    let mut buf = Zeroizing::new([0u8; N]);
    let mut out = heapless::String::new();
    out.push_str(text(v, what, &mut *buf)?).map_err(|_| Error::Schema(what))?;
    Ok(out)
}

/// What a redacted query or fragment is shown as.
pub const REDACTED: &str = "<redacted>";

/// `url` without what it carries after its first `?` or `#`: the query becomes
/// `?<redacted>` and the fragment `#<redacted>` (each when its delimiter is present), so a URL that
/// failed the `no_query` check (a secret may be in it) can be shown. The one redaction
/// every surface shows; [`Invitation::exchange_href`] is redacted by it.
///
/// ```
/// use concordia_core::consensus::invitation::redact_url;
/// assert_eq!(redact_url("https://a.example/x?secret=abc#f").as_str(), "https://a.example/x?<redacted>#<redacted>");
/// assert_eq!(redact_url("https://a.example/x").as_str(), "https://a.example/x");
/// ```
#[must_use]
pub fn redact_url(url: &str) -> heapless::String<MAX_URL> {
    let cut = url.find(['?', '#']).unwrap_or(url.len());
    let (base, rest) = url.split_at(cut);
    let (query, fragment) = (rest.starts_with('?'), rest.contains('#'));
    let mut tail: heapless::String<24> = heapless::String::new();
    for (present, mark) in [(query, '?'), (fragment, '#')] {
        if present {
            let _ = tail.push(mark);
            let _ = tail.push_str(REDACTED);
        }
    }
    // The base is cut at a character boundary short enough for the markers to fit.
    let mut keep = base.len().min(MAX_URL - tail.len());
    while !base.is_char_boundary(keep) {
        keep -= 1;
    }
    let mut out = heapless::String::new();
    let _ = out.push_str(base.get(..keep).unwrap_or_default());
    let _ = out.push_str(&tail);
    out
}

fn only_members(v: Value<'_>, allowed: &[&str], what: &'static str) -> Result<()> {
    if v.kind() != Kind::Object || v.members().any(|(k, _)| !allowed.iter().any(|a| k.eq_str(a))) {
        return Err(Error::Schema(what));
    }
    Ok(())
}

/// A canonical 8-4-4-4-12 hex UUID (either case).
#[must_use]
pub fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes()
            .enumerate()
            .all(|(i, b)| if matches!(i, 8 | 13 | 18 | 23) { b == b'-' } else { b.is_ascii_hexdigit() })
}

/// Splits `scheme://authority/path...` into (scheme, authority, rest-from-slash).
fn split_url(url: &str) -> Option<(&str, &str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    let slash = rest.find('/').unwrap_or(rest.len());
    Some((scheme, rest.get(..slash)?, rest.get(slash..)?))
}

fn same_origin(url: &str, origin: &Origin<'_>) -> bool {
    url.strip_prefix(origin.as_str()).is_some_and(|rest| rest.starts_with('/'))
}

impl Invitation {
    /// Extracts and validates the invitation in a plain-text email (the decoded
    /// `text/plain` part). This is the fuzzing entry point.
    ///
    /// # Errors
    /// [`Error::Limit`] for an email over [`MAX_EMAIL`] bytes, [`Error::Json`] for invalid
    /// UTF-8 or JSON in the block, [`Error::Schema`] for missing markers or a block that
    /// does not have the schema's shape. Failed URL checks are not errors here: see
    /// [`Invitation::checks`].
    pub fn parse(email: &[u8], origin: &Origin<'_>) -> Result<Invitation> {
        if email.len() > MAX_EMAIL {
            return Err(Error::Limit { kind: crate::error::Limit::Size, offset: MAX_EMAIL });
        }
        let block = extract_block(email)?;
        let mut nodes = [Node::EMPTY; NODES];
        let doc = json::parse(block, &mut nodes)?;
        let root = doc.root();
        only_members(
            root,
            &["schema", "invitation_id", "invite_uri", "agent_exchange", "agent_claim"],
            "invitation members",
        )?;
        if !root.get("schema").is_some_and(|v| v.is_str(SCHEMA)) {
            return Err(Error::Schema("invitation schema"));
        }
        let id: heapless::String<36> = owned(root.get("invitation_id"), "invitation_id")?;
        if !is_uuid(&id) {
            return Err(Error::Schema("invitation_id"));
        }
        // The invite URL (its fragment is the secret), the exchange URL (a secret when it
        // fails `no_query`) and the email proof are decoded into buffers erased on return.
        let mut invite_buf = Zeroizing::new([0u8; MAX_URL]);
        let invite = text(root.get("invite_uri"), "invite_uri", &mut *invite_buf)?;
        let exchange = root.get("agent_exchange").ok_or(Error::Schema("agent_exchange"))?;
        only_members(exchange, &["method", "href"], "agent_exchange")?;
        if !exchange.get("method").is_some_and(|m| m.is_str("POST")) {
            return Err(Error::Schema("agent_exchange.method"));
        }
        let mut href_buf = Zeroizing::new([0u8; MAX_URL]);
        let href = text(exchange.get("href"), "agent_exchange.href", &mut *href_buf)?;
        let claim = root.get("agent_claim").ok_or(Error::Schema("agent_claim"))?;
        only_members(claim, &["email_proof", "meaning"], "agent_claim")?;
        if claim.get("meaning").is_some_and(|m| m.kind() != Kind::String) {
            return Err(Error::Schema("agent_claim.meaning"));
        }
        let mut proof_buf = Zeroizing::new([0u8; MAX_SECRET_LEN]);
        let proof = EmailProof::new(text(claim.get("email_proof"), "agent_claim.email_proof", &mut *proof_buf)?)?;

        let mut checks = Checks::default();
        let (inv_parts, ex_parts) = (split_url(invite), split_url(href));
        checks.https = [inv_parts, ex_parts].iter().all(|p| p.is_some_and(|(s, _, _)| s == "https"));
        checks.origin = same_origin(invite, origin) && same_origin(href, origin);
        let (inv_before_frag, fragment) = match invite.split_once('#') {
            Some((a, f)) => (a, Some(f)),
            None => (invite, None),
        };
        checks.no_query = !inv_before_frag.contains('?') && !href.contains('?') && !href.contains('#');
        let inv_path = split_url(inv_before_frag).map(|(_, _, p)| p);
        let ex_path = ex_parts.map(|(_, _, p)| p);
        let inv_uuid = inv_path.and_then(|p| p.strip_prefix("/i/"));
        let ex_uuid = ex_path
            .and_then(|p| p.strip_prefix("/api/v1/agent/invitations/"))
            .and_then(|p| p.strip_suffix("/exchange"));
        checks.uuids = inv_uuid == Some(id.as_str()) && ex_uuid == Some(id.as_str());
        let secret = fragment.and_then(|f| f.strip_prefix("secret=")).and_then(|s| FragmentSecret::new(s).ok());
        checks.secret = secret.is_some();
        // A URL that failed `no_query` is kept (and shown by every surface) redacted.
        let exchange_href = if checks.no_query {
            let mut h = heapless::String::new();
            h.push_str(href).map_err(|_| Error::Schema("agent_exchange.href"))?;
            h
        } else {
            redact_url(href)
        };
        Ok(Invitation { id, exchange_href, secret, proof, checks })
    }

    /// The envelope `invitation_id`.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// `agent_exchange.href`; when it failed the `no_query` check (a query or fragment,
    /// which may carry a secret), as [`redact_url`] shows it.
    #[must_use]
    pub fn exchange_href(&self) -> &str {
        &self.exchange_href
    }

    /// The checks and their results.
    #[must_use]
    pub fn checks(&self) -> Checks {
        self.checks
    }

    /// The fragment secret, only when every check passed.
    ///
    /// # Errors
    /// The first failed check, as [`Checks::result`].
    pub fn secret(&self) -> Result<&FragmentSecret> {
        self.checks.result()?;
        self.secret.as_ref().ok_or(Error::Encoding("invitation fragment secret"))
    }

    /// The email-only proof (for the claim), only when every check passed.
    ///
    /// # Errors
    /// The first failed check, as [`Checks::result`].
    pub fn email_proof(&self) -> Result<&EmailProof> {
        self.checks.result()?;
        Ok(&self.proof)
    }

    /// The exchange request: `POST <exchange href>` with `Authorization: Consensus-Invite
    /// <secret>` and the body `{}`.
    ///
    /// # Errors
    /// The first failed check, as [`Checks::result`].
    pub fn exchange_request(&self) -> Result<ExchangeRequest<'_>> {
        let secret = self.secret()?;
        Ok(ExchangeRequest { url: &self.exchange_href, authorization: Authorization::from(secret) })
    }
}

/// The exchange request. The URL never contains the secret; it travels in the header.
#[derive(Clone, Copy, Debug)]
pub struct ExchangeRequest<'a> {
    /// The exchange URL (`agent_exchange.href`).
    pub url: &'a str,
    /// `Authorization: Consensus-Invite <secret>`.
    pub authorization: Authorization<'a>,
}

impl ExchangeRequest<'_> {
    /// The HTTP method.
    pub const METHOD: &'static str = "POST";
    /// The request body (the secret is in the header, so the body is empty JSON); well
    /// under [`MAX_EXCHANGE_BODY`].
    pub const BODY: &'static [u8] = b"{}";
    /// The content type of [`ExchangeRequest::BODY`].
    pub const CONTENT_TYPE: &'static str = "application/json";
}
