//! The negotiation session state machine (SPEC §5) as an object.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use concordia_core::session::{Role as CoreRole, State as CoreState, Timing as CoreTiming};
use concordia_core::sign::PublicKey;

use crate::errors::ProtocolError;
use crate::util::{system_time, timestamp};

/// Parties a session holds.
pub const MAX_PARTIES: usize = concordia_host::SESSION_MAX_PARTIES;
/// Numeric terms remembered per party for concession tracking.
pub const MAX_TERMS: usize = concordia_host::SESSION_MAX_TERMS;

/// The session type every host uses.
pub(crate) type Inner = concordia_host::HostSession;

/// The six session states of SPEC §5.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum SessionState {
    /// `negotiate.open` sent.
    Proposed,
    /// Offers flow.
    Active,
    /// Terms accepted (terminal).
    Agreed,
    /// Declined, rejected or withdrawn (terminal).
    Rejected,
    /// The TTL elapsed (terminal).
    Expired,
    /// Rejected or expired and flagged reactivatable.
    Dormant,
}

impl From<CoreState> for SessionState {
    fn from(s: CoreState) -> Self {
        match s {
            CoreState::Proposed => SessionState::Proposed,
            CoreState::Active => SessionState::Active,
            CoreState::Agreed => SessionState::Agreed,
            CoreState::Rejected => SessionState::Rejected,
            CoreState::Expired => SessionState::Expired,
            CoreState::Dormant => SessionState::Dormant,
        }
    }
}

/// A party's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum Role {
    /// `initiator`.
    Initiator,
    /// `responder`.
    Responder,
    /// `mediator`.
    Mediator,
    /// `witness`.
    Witness,
}

impl From<Role> for CoreRole {
    fn from(r: Role) -> Self {
        match r {
            Role::Initiator => CoreRole::Initiator,
            Role::Responder => CoreRole::Responder,
            Role::Mediator => CoreRole::Mediator,
            Role::Witness => CoreRole::Witness,
        }
    }
}

impl From<CoreRole> for Role {
    fn from(r: CoreRole) -> Self {
        match r {
            CoreRole::Initiator => Role::Initiator,
            CoreRole::Responder => Role::Responder,
            CoreRole::Mediator => Role::Mediator,
            CoreRole::Witness => Role::Witness,
        }
    }
}

/// Timing parameters of SPEC §5.3, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct Timing {
    /// Maximum duration of the session.
    #[uniffi(default = 86400)]
    pub session_ttl: u32,
    /// Maximum time to answer an offer.
    #[uniffi(default = 3600)]
    pub offer_ttl: u32,
    /// Maximum number of offers and counters.
    #[uniffi(default = 20)]
    pub max_rounds: u32,
}

impl From<Timing> for CoreTiming {
    fn from(t: Timing) -> Self {
        CoreTiming { session_ttl: t.session_ttl, offer_ttl: t.offer_ttl, max_rounds: t.max_rounds }
    }
}

impl From<CoreTiming> for Timing {
    fn from(t: CoreTiming) -> Self {
        Timing { session_ttl: t.session_ttl, offer_ttl: t.offer_ttl, max_rounds: t.max_rounds }
    }
}

/// A registered party and the behaviour summary the session derived from its messages.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct PartyInfo {
    /// `agent_id`.
    pub agent_id: String,
    /// Role.
    pub role: Role,
    /// Registered public key (padded base64url), if any.
    pub public_key: Option<String>,
    /// Offers and counters sent.
    pub offers_made: u32,
    /// Offers that moved at least one numeric term.
    pub concessions: u32,
    /// Running mean of the concession of those offers.
    pub concession_magnitude: f64,
    /// Whether any message carried a non-empty `reasoning`.
    pub reasoning_provided: bool,
    /// Whether the party withdrew.
    pub withdrawal: bool,
}

/// A negotiation session: state, counters, transcript tip and hash, up to 8 parties with
/// their behaviour summaries. Fixed size whatever the number of messages. Methods lock an
/// internal mutex, so the object may be shared across threads.
#[derive(uniffi::Object)]
pub struct Session {
    pub(crate) inner: Mutex<Inner>,
    nodes: Mutex<concordia_host::session::SessionNodes>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("id", &self.id()).field("state", &self.state()).finish_non_exhaustive()
    }
}

impl Session {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[uniffi::export]
impl Session {
    /// A session in PROPOSED with identifier `id` (at most 128 bytes), created at
    /// `created_at`, with `timing` (`None`: the core's `Timing::default()`, docs/limits.md).
    #[uniffi::constructor(default(timing = None))]
    pub fn new(id: String, created_at: SystemTime, timing: Option<Timing>) -> Result<Arc<Self>, ProtocolError> {
        let timing = timing.map_or_else(CoreTiming::default, CoreTiming::from);
        let session = Inner::new(&id, timing, timestamp(created_at)?)?;
        Ok(Arc::new(Session {
            inner: Mutex::new(session),
            nodes: Mutex::new(concordia_host::session::SessionNodes::default()),
        }))
    }

    /// Registers a party with its role and, optionally, its public key (base64 or
    /// base64url), which `apply` uses when it is given no `keys_json`. Registering an
    /// agent again updates its role and key.
    #[uniffi::method(default(public_key = None))]
    pub fn add_party(&self, agent_id: String, role: Role, public_key: Option<String>) -> Result<(), ProtocolError> {
        let key = public_key.as_deref().map(PublicKey::from_b64).transpose()?;
        self.lock().add_party(&agent_id, role.into(), key)?;
        Ok(())
    }

    /// Applies one signed message (JSON text) at time `now` and returns the new state.
    /// Keys: `keys_json` (an object of `agent_id` to base64url key), when given, is the only
    /// source of the sender's key, as the reference SDK's resolver: a sender it does not
    /// map is refused even if registered with a key, and the key it maps replaces the
    /// registered one (a rotated key). Without `keys_json`, the keys registered with
    /// `add_party` are used. A message that fails any check leaves the
    /// session exactly as it was.
    #[uniffi::method(default(keys_json = None))]
    pub fn apply(
        &self,
        message_json: String,
        now: SystemTime,
        keys_json: Option<String>,
    ) -> Result<SessionState, ProtocolError> {
        let now = timestamp(now)?;
        let mut nodes = self.nodes.lock().unwrap_or_else(PoisonError::into_inner);
        let keys = keys_json.as_deref().map(str::as_bytes);
        let next = nodes.apply_text(&mut self.lock(), message_json.as_bytes(), keys, now)?;
        Ok(next.into())
    }

    /// The TTL elapsed: PROPOSED or ACTIVE becomes EXPIRED at `now`.
    pub fn expire(&self, now: SystemTime) -> Result<(), ProtocolError> {
        let now = timestamp(now)?;
        self.lock().expire(now)?;
        Ok(())
    }

    /// REJECTED or EXPIRED becomes DORMANT, flagged reactivatable.
    pub fn make_dormant(&self) -> Result<(), ProtocolError> {
        self.lock().make_dormant()?;
        Ok(())
    }

    /// The session identifier.
    pub fn id(&self) -> String {
        self.lock().id().to_string()
    }

    /// The current state.
    pub fn state(&self) -> SessionState {
        self.lock().state().into()
    }

    /// The timing parameters.
    pub fn timing(&self) -> Timing {
        self.lock().timing().into()
    }

    /// Offers and counters applied so far.
    pub fn round_count(&self) -> u32 {
        self.lock().round_count()
    }

    /// Messages applied so far.
    pub fn message_count(&self) -> u64 {
        self.lock().message_count()
    }

    /// The tip, `sha256:<hex>`: the last applied message's hash, which is the next
    /// message's `prev_hash` and the attestation's `chain_head` (the genesis hash before
    /// the first message).
    pub fn tip(&self) -> String {
        self.lock().tip().to_prefixed().as_str().to_string()
    }

    /// The running transcript hash over every applied message.
    pub fn transcript_hash(&self) -> String {
        self.lock().transcript_hash().to_prefixed().as_str().to_string()
    }

    /// When the session was created.
    pub fn created_at(&self) -> SystemTime {
        system_time(self.lock().created_at())
    }

    /// When it reached a terminal state, if it has.
    pub fn concluded_at(&self) -> Option<SystemTime> {
        self.lock().concluded_at().map(system_time)
    }

    /// Whether a rejected or expired session was flagged reactivatable.
    pub fn is_reactivatable(&self) -> bool {
        self.lock().is_reactivatable()
    }

    /// The registered parties, in registration order.
    pub fn parties(&self) -> Vec<PartyInfo> {
        self.lock()
            .parties()
            .iter()
            .map(|p| {
                let b = p.behavior();
                PartyInfo {
                    agent_id: p.agent_id().to_string(),
                    role: p.role().into(),
                    public_key: p.public_key().map(|k| k.to_b64url().as_str().to_string()),
                    offers_made: b.offers_made,
                    concessions: b.concessions,
                    concession_magnitude: b.concession_magnitude,
                    reasoning_provided: b.reasoning_provided,
                    withdrawal: b.withdrawal,
                }
            })
            .collect()
    }
}
