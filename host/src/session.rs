//! The one composition of "apply a signed message to a session" for every surface (CLI
//! `session replay`, C `concordia_session_apply` and Go `Session.Apply`, Python
//! `Session.apply_message`, UniFFI `Session.apply`, the npm package's `Session.apply`).
//!
//! The checks and their order (shape, signature, binding, chain, transition, timing) are the
//! core's [`Session::apply`](concordia_core::session::Session::apply). What is decided here,
//! once:
//!
//! * **the key source**: keys given by the caller are the only source (an agent they do not
//!   list is refused, a key they list replaces the party's, as the reference SDK's
//!   resolver); no keys given means the keys registered with the parties;
//! * **keys as JSON** ([`key_map`]): an object of `agent_id` to a base64url key; anything
//!   else (an array, `null`, a string) is [`Error::Schema`], never "no keys";
//! * **text** ([`SessionNodes::apply_text`]): the message is parsed under the one parsing
//!   policy before the keys, so malformed message text is reported first.
//!
//! ```
//! use concordia_core::session::{Role, Timing};
//! use concordia_core::time::Timestamp;
//! use concordia_host::session::SessionNodes;
//! use concordia_host::HostSession;
//!
//! let mut s = HostSession::new("s1", Timing::default(), Timestamp::from_unix(0)).unwrap();
//! s.add_party("a", Role::Initiator, None).unwrap();
//! let mut nodes = SessionNodes::default();
//! // Keys that are not an object are refused, not ignored.
//! let e = nodes.apply_text(&mut s, b"{}", Some(b"[]"), Timestamp::from_unix(1)).unwrap_err();
//! assert_eq!(e.class().as_str(), "schema");
//! ```

use concordia_core::json::{Kind, Value};
use concordia_core::message::{KeyMap, KeyResolver};
use concordia_core::session::State;
use concordia_core::time::Timestamp;
use concordia_core::{Error, Result};

use crate::{HostSession, Nodes};

/// `Error::Schema` detail for keys that are not a JSON object.
pub const KEYS_NOT_OBJECT: &str = "keys must be an object of agent_id to public key";

/// Applies `msg` at `now`, with `keys` as the only key source when given, else the keys
/// registered with the parties.
///
/// # Errors
/// The core's [`Session::apply`](concordia_core::session::Session::apply) errors; the
/// session is unchanged after one.
pub fn apply_message<R: KeyResolver + ?Sized>(
    session: &mut HostSession,
    msg: Value<'_>,
    keys: Option<&R>,
    now: Timestamp,
) -> Result<State> {
    match keys {
        Some(k) => session.apply(msg, k, now),
        None => {
            let registered = session.registered_keys();
            session.apply(msg, &registered, now)
        }
    }
}

/// Keys given as JSON: an object of `agent_id` to a base64url Ed25519 key (an entry that
/// does not decode resolves to nothing).
///
/// # Errors
/// [`Error::Schema`]`(`[`KEYS_NOT_OBJECT`]`)` for any other JSON value.
pub fn key_map(keys: Value<'_>) -> Result<KeyMap<'_>> {
    if keys.kind() != Kind::Object {
        return Err(Error::Schema(KEYS_NOT_OBJECT));
    }
    Ok(KeyMap(keys))
}

/// [`apply_message`] with keys given as a JSON value (`None`: the registered keys).
///
/// # Errors
/// As [`key_map`], then as [`apply_message`].
pub fn apply_json(session: &mut HostSession, msg: Value<'_>, keys: Option<Value<'_>>, now: Timestamp) -> Result<State> {
    let keys = keys.map(key_map).transpose()?;
    apply_message(session, msg, keys.as_ref(), now)
}

/// The parse buffers of a live session (one for messages, one for keys), kept between
/// calls so that a long session does not allocate per message.
#[derive(Debug, Default)]
pub struct SessionNodes {
    message: Nodes,
    keys: Nodes,
}

impl SessionNodes {
    /// Parses the message text and the keys text (`None`: the registered keys) under the
    /// one parsing policy, then [`apply_json`].
    ///
    /// # Errors
    /// The parser's errors for the message, then for the keys; then as [`apply_json`].
    pub fn apply_text(
        &mut self,
        session: &mut HostSession,
        message: &[u8],
        keys: Option<&[u8]>,
        now: Timestamp,
    ) -> Result<State> {
        let msg = self.message.parse(message)?;
        let keys = match keys {
            Some(k) => Some(self.keys.parse(k)?),
            None => None,
        };
        apply_json(session, msg.root(), keys.as_ref().map(|d| d.root()), now)
    }
}

#[cfg(test)]
mod tests {
    use concordia_core::session::{Role, Timing};

    use super::*;

    fn session() -> HostSession {
        let mut s = HostSession::new("s1", Timing::default(), Timestamp::from_unix(0)).unwrap();
        s.add_party("a", Role::Initiator, None).unwrap();
        s
    }

    #[test]
    fn keys_that_are_not_an_object_are_a_schema_error_not_no_keys() {
        let mut nodes = SessionNodes::default();
        for keys in [&b"null"[..], b"[]", b"\"k\"", b"1"] {
            let e = nodes.apply_text(&mut session(), b"{}", Some(keys), Timestamp::from_unix(1)).unwrap_err();
            assert_eq!(e, Error::Schema(KEYS_NOT_OBJECT), "{keys:?}");
        }
    }

    #[test]
    fn malformed_message_text_is_reported_before_bad_keys() {
        let mut nodes = SessionNodes::default();
        let e = nodes.apply_text(&mut session(), b"{", Some(b"[]"), Timestamp::from_unix(1)).unwrap_err();
        assert_eq!(e.class().as_str(), "input");
    }
}
