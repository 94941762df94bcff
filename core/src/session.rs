//! The negotiation session state machine (SPEC §5).
//!
//! A [`Session`] is a fixed-size value: state, counters, the transcript tip, a running
//! SHA-256 of the transcript, timing, and up to `P` parties with their behaviour summaries
//! (`T` numeric terms remembered per party for concession tracking). Its size does not
//! depend on how many messages it has seen.
//!
//! [`Session::apply`] checks a signed message in the reference SDK's order (sender, signature,
//! session binding, chain link, transition, round cap), plus the session and offer TTLs
//! against the `now` the caller passes, and only then changes the session. A message that
//! fails any check leaves the session exactly as it was.
//!
//! | from | message | to |
//! |---|---|---|
//! | PROPOSED | `open` | PROPOSED |
//! | PROPOSED | `accept_session` / `decline_session` | ACTIVE / REJECTED |
//! | ACTIVE | `offer`, `counter`, `signal`, `inquire`, `constrain`, `propose_mediator`, `resolve` | ACTIVE |
//! | ACTIVE | `accept`, `commit` | AGREED |
//! | ACTIVE | `reject`, `withdraw` | REJECTED |
//! | DORMANT | `offer` | ACTIVE |
//!
//! [`Session::expire`] (PROPOSED or ACTIVE to EXPIRED) and [`Session::make_dormant`]
//! (REJECTED or EXPIRED to DORMANT, reactivatable) are the two transitions not driven by a
//! message.

use heapless::{String, Vec};

use crate::digest::{Digest, Sha256Sink};
use crate::error::{Error, Result};
use crate::json::{Kind, Str, Value};
use crate::message::{self, KeyResolver, GENESIS_HASH};
use crate::sign::PublicKey;
use crate::sink::Sink;
use crate::time::Timestamp;
use crate::{jcs, offer};

mod behavior;

pub use behavior::{Behavior, TermKey};

/// Longest agent or session identifier a session stores.
pub const ID_CAPACITY: usize = 128;

/// The six states of SPEC §5.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    /// `negotiate.open` sent; the counterparty has not agreed to negotiate.
    Proposed,
    /// Offers flow.
    Active,
    /// Terms accepted; terminal.
    Agreed,
    /// Declined, rejected or withdrawn; terminal.
    Rejected,
    /// The TTL elapsed; terminal.
    Expired,
    /// Rejected or expired, flagged reactivatable; an offer reactivates it.
    Dormant,
}

impl State {
    /// The SDK's lowercase name (`"proposed"`, ...).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            State::Proposed => "proposed",
            State::Active => "active",
            State::Agreed => "agreed",
            State::Rejected => "rejected",
            State::Expired => "expired",
            State::Dormant => "dormant",
        }
    }

    /// AGREED, REJECTED or EXPIRED.
    #[must_use]
    pub const fn is_terminal(self) -> bool {
        matches!(self, State::Agreed | State::Rejected | State::Expired)
    }
}

/// The fourteen message types of SPEC §4.2.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum MessageType {
    Open,
    AcceptSession,
    DeclineSession,
    Offer,
    Counter,
    Accept,
    Reject,
    Inquire,
    Constrain,
    Signal,
    Withdraw,
    ProposeMediator,
    Resolve,
    Commit,
}

impl MessageType {
    /// Every message type.
    pub const ALL: [MessageType; 14] = [
        MessageType::Open,
        MessageType::AcceptSession,
        MessageType::DeclineSession,
        MessageType::Offer,
        MessageType::Counter,
        MessageType::Accept,
        MessageType::Reject,
        MessageType::Inquire,
        MessageType::Constrain,
        MessageType::Signal,
        MessageType::Withdraw,
        MessageType::ProposeMediator,
        MessageType::Resolve,
        MessageType::Commit,
    ];

    /// The wire name, e.g. `negotiate.offer`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            MessageType::Open => "negotiate.open",
            MessageType::AcceptSession => "negotiate.accept_session",
            MessageType::DeclineSession => "negotiate.decline_session",
            MessageType::Offer => "negotiate.offer",
            MessageType::Counter => "negotiate.counter",
            MessageType::Accept => "negotiate.accept",
            MessageType::Reject => "negotiate.reject",
            MessageType::Inquire => "negotiate.inquire",
            MessageType::Constrain => "negotiate.constrain",
            MessageType::Signal => "negotiate.signal",
            MessageType::Withdraw => "negotiate.withdraw",
            MessageType::ProposeMediator => "negotiate.propose_mediator",
            MessageType::Resolve => "negotiate.resolve",
            MessageType::Commit => "negotiate.commit",
        }
    }

    /// Parses a wire name.
    #[must_use]
    pub fn parse(s: Str<'_>) -> Option<MessageType> {
        MessageType::ALL.into_iter().find(|t| s.eq_str(t.as_str()))
    }

    /// Offers and counters count against `max_rounds`.
    #[must_use]
    pub const fn is_round(self) -> bool {
        matches!(self, MessageType::Offer | MessageType::Counter)
    }
}

/// The transition table of the reference SDK (SPEC §5.2): the state after `message` in
/// `state`, or `None` when the message is not allowed there.
#[must_use]
pub const fn transition(state: State, message: MessageType) -> Option<State> {
    use MessageType as M;
    use State as S;
    match (state, message) {
        (S::Proposed, M::Open) => Some(S::Proposed),
        (S::Proposed, M::AcceptSession) => Some(S::Active),
        (S::Proposed, M::DeclineSession) => Some(S::Rejected),
        (
            S::Active,
            M::Offer | M::Counter | M::Signal | M::Inquire | M::Constrain | M::ProposeMediator | M::Resolve,
        ) => Some(S::Active),
        (S::Active, M::Accept | M::Commit) => Some(S::Agreed),
        (S::Active, M::Reject | M::Withdraw) => Some(S::Rejected),
        (S::Dormant, M::Offer) => Some(S::Active),
        _ => None,
    }
}

/// A party's role (the SDK's `PartyRole`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Role {
    Initiator,
    Responder,
    Mediator,
    Witness,
}

impl Role {
    /// Every role, in the order of the SDK's `PartyRole`.
    pub const ALL: [Role; 4] = [Role::Initiator, Role::Responder, Role::Mediator, Role::Witness];

    /// The wire name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Initiator => "initiator",
            Role::Responder => "responder",
            Role::Mediator => "mediator",
            Role::Witness => "witness",
        }
    }

    /// Parses the wire name (compared with the decoded text: a caller passes decoded text).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`]`("unknown role")` for any other text.
    pub fn parse(s: &str) -> Result<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s).ok_or(Error::InvalidArgument("unknown role"))
    }
}

/// Timing parameters of SPEC §5.3, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// Maximum duration of the session (default 24 hours).
    pub session_ttl: u32,
    /// Maximum time to answer an offer (default 1 hour).
    pub offer_ttl: u32,
    /// Maximum number of offers and counters (default 20).
    pub max_rounds: u32,
}

impl Default for Timing {
    fn default() -> Self {
        Timing { session_ttl: 86_400, offer_ttl: 3_600, max_rounds: 20 }
    }
}

impl Timing {
    /// Timing from real numbers, for hosts whose callers pass any number (the reference
    /// SDK's `TimingConfig` takes any value: `-1`, `2**32`, `2.5`, `None`). `None` is a
    /// field the caller left unset (`None` in Python).
    ///
    /// * `max_rounds`: the SDK refuses an offer or counter when `round_count >= max_rounds`;
    ///   for a whole `round_count` that is `round_count >= ceil(max_rounds)`, so the cap is
    ///   `ceil(max_rounds)` clamped to `0..=u32::MAX` (negative and `-inf`: 0, every offer
    ///   refused; `+inf` and NaN, for which the comparison is never true: `u32::MAX`). `None`
    ///   is 0: the SDK's comparison with `None` raises at the first offer, so no offer
    ///   is ever accepted.
    /// * `session_ttl`, `offer_ttl` (whole seconds): rounded down (a fractional TTL never
    ///   lasts longer than asked) and clamped to `0..=u32::MAX`; `None`, NaN and `+inf` are
    ///   `u32::MAX` (no practical limit: the SDK enforces neither TTL).
    #[must_use]
    pub fn from_real(session_ttl: Option<f64>, offer_ttl: Option<f64>, max_rounds: Option<f64>) -> Timing {
        fn clamp(x: f64) -> u32 {
            if x.is_nan() || x >= f64::from(u32::MAX) {
                u32::MAX
            } else if x <= 0.0 {
                0
            } else {
                x as u32
            }
        }
        let ttl = |t: Option<f64>| t.map_or(u32::MAX, |x| clamp(floor(x)));
        Timing {
            session_ttl: ttl(session_ttl),
            offer_ttl: ttl(offer_ttl),
            max_rounds: max_rounds.map_or(0, |x| clamp(-floor(-x))),
        }
    }
}

/// `x` rounded towards negative infinity (no `std`: `f64::floor` is not in `core`).
fn floor(x: f64) -> f64 {
    if !x.is_finite() || x.abs() >= 4_503_599_627_370_496.0 {
        return x; // infinite, NaN, or an integer already (2^52 and beyond)
    }
    let t = x as i64 as f64;
    if t > x {
        t - 1.0
    } else {
        t
    }
}

/// A registered party: identity, role, key and behaviour summary.
#[derive(Clone, Debug)]
pub struct Party<const T: usize> {
    agent_id: String<ID_CAPACITY>,
    role: Role,
    key: Option<PublicKey>,
    behavior: Behavior<T>,
}

impl<const T: usize> Party<T> {
    /// The agent's identifier.
    #[must_use]
    pub fn agent_id(&self) -> &str {
        &self.agent_id
    }
    /// The party's role.
    #[must_use]
    pub fn role(&self) -> Role {
        self.role
    }
    /// The registered public key, if any.
    #[must_use]
    pub fn public_key(&self) -> Option<PublicKey> {
        self.key
    }
    /// The behaviour summary derived from this party's messages.
    #[must_use]
    pub fn behavior(&self) -> &Behavior<T> {
        &self.behavior
    }
}

/// The keys registered with [`Session::add_party`] (from [`Session::registered_keys`]): a
/// [`KeyResolver`] that maps each registered `agent_id` to its key, and anything else to
/// nothing.
#[derive(Clone, Debug)]
pub struct RegisteredKeys<const P: usize> {
    keys: Vec<(String<ID_CAPACITY>, PublicKey), P>,
}

impl<const P: usize> KeyResolver for RegisteredKeys<P> {
    fn resolve(&self, agent_id: Str<'_>) -> Option<PublicKey> {
        self.keys.iter().find(|(id, _)| agent_id.eq_str(id)).map(|(_, k)| *k)
    }
}

/// A negotiation session with room for `P` parties and `T` remembered numeric terms per
/// party. `Session<4, 16>` is about 3 KB.
#[derive(Clone, Debug)]
pub struct Session<const P: usize = 4, const T: usize = 16> {
    id: String<ID_CAPACITY>,
    state: State,
    timing: Timing,
    created_at: Timestamp,
    concluded_at: Option<Timestamp>,
    last_offer_at: Option<Timestamp>,
    round_count: u32,
    message_count: u64,
    terms_count: u32,
    terms_unsized: bool,
    tip: Digest,
    transcript: Sha256Sink,
    reactivatable: bool,
    parties: Vec<Party<T>, P>,
    /// Behaviour of senders who are not (yet) parties, as the SDK tracks it: it becomes the
    /// party's when [`Session::add_party`] registers them.
    senders: Vec<(String<ID_CAPACITY>, Behavior<T>), P>,
}

impl<const P: usize, const T: usize> Session<P, T> {
    /// A new session in PROPOSED, created at `created_at` (the core reads no clock).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `id` is longer than [`ID_CAPACITY`] bytes.
    pub fn new(id: &str, timing: Timing, created_at: Timestamp) -> Result<Self> {
        Ok(Session {
            id: String::try_from(id).map_err(|_| Error::InvalidArgument("session id too long"))?,
            state: State::Proposed,
            timing,
            created_at,
            concluded_at: None,
            last_offer_at: None,
            round_count: 0,
            message_count: 0,
            terms_count: 0,
            terms_unsized: false,
            tip: GENESIS_HASH,
            transcript: Sha256Sink::new(),
            reactivatable: false,
            parties: Vec::new(),
            senders: Vec::new(),
        })
    }

    /// Registers a party (re-registering an agent updates its role and key). A sender whose
    /// messages were applied before it became a party keeps the behaviour they built, as in
    /// the reference SDK.
    ///
    /// # Errors
    /// [`Error::Limit`] when `P` parties are registered already;
    /// [`Error::InvalidArgument`] for an id longer than [`ID_CAPACITY`].
    pub fn add_party(&mut self, agent_id: &str, role: Role, key: Option<PublicKey>) -> Result<()> {
        if let Some(p) = self.parties.iter_mut().find(|p| p.agent_id.as_str() == agent_id) {
            p.role = role;
            if key.is_some() {
                p.key = key;
            }
            return Ok(());
        }
        let agent_id = String::try_from(agent_id).map_err(|_| Error::InvalidArgument("agent id too long"))?;
        if self.parties.is_full() {
            return Err(Error::Limit { kind: crate::error::Limit::Capacity, offset: 0 });
        }
        let behavior = match self.senders.iter().position(|(id, _)| *id == agent_id) {
            Some(i) => self.senders.swap_remove(i).1,
            None => Behavior::new(),
        };
        self.parties
            .push(Party { agent_id, role, key, behavior })
            .map_err(|_| Error::Limit { kind: crate::error::Limit::Capacity, offset: 0 })
    }

    /// The session identifier.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }
    /// The current state.
    #[must_use]
    pub fn state(&self) -> State {
        self.state
    }
    /// The timing parameters.
    #[must_use]
    pub fn timing(&self) -> Timing {
        self.timing
    }
    /// Offers and counters applied so far.
    #[must_use]
    pub fn round_count(&self) -> u32 {
        self.round_count
    }
    /// Messages applied so far.
    #[must_use]
    pub fn message_count(&self) -> u64 {
        self.message_count
    }
    /// The length of the last `negotiate.open` body's `terms`, as the reference SDK's
    /// `len(session.terms)` reads it: members of an object, elements of an array, characters
    /// of a string; 0 when it is absent or falsy (`null`, `false`, `0`, `""`, `[]`, `{}`).
    /// A non-zero number or `true` has no length: 0 here, and [`Session::terms_unsized`].
    #[must_use]
    pub fn terms_count(&self) -> u32 {
        self.terms_count
    }
    /// True when the last `negotiate.open` carried `terms` without a length (a non-zero
    /// number or `true`): the SDK's attestation then fails on `len(terms)`.
    #[must_use]
    pub fn terms_unsized(&self) -> bool {
        self.terms_unsized
    }
    /// Hash of the last applied message ([`GENESIS_HASH`] before the first): the next
    /// message's `prev_hash`, and the attestation's `chain_head`.
    #[must_use]
    pub fn tip(&self) -> Digest {
        self.tip
    }
    /// The SDK's legacy `transcript_hash`: SHA-256 over the concatenated canonical forms of
    /// every applied message.
    #[must_use]
    pub fn transcript_hash(&self) -> Digest {
        self.transcript.clone().finish()
    }
    /// When the session was created.
    #[must_use]
    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }
    /// When the session reached AGREED, REJECTED or EXPIRED.
    #[must_use]
    pub fn concluded_at(&self) -> Option<Timestamp> {
        self.concluded_at
    }
    /// Whole seconds from creation to conclusion, or to `now` while open (never negative):
    /// the exact difference truncated, as the SDK's `int((end - created).total_seconds())`.
    #[must_use]
    pub fn duration_seconds(&self, now: Timestamp) -> u64 {
        let end = self.concluded_at.unwrap_or(now);
        u64::try_from(end.seconds_since(&self.created_at)).unwrap_or(0)
    }
    /// True once flagged reactivatable by [`Session::make_dormant`].
    #[must_use]
    pub fn is_reactivatable(&self) -> bool {
        self.reactivatable
    }
    /// The registered parties, in registration order.
    #[must_use]
    pub fn parties(&self) -> &[Party<T>] {
        &self.parties
    }
    /// The registered party `agent_id`.
    #[must_use]
    pub fn party(&self, agent_id: &str) -> Option<&Party<T>> {
        self.parties.iter().find(|p| p.agent_id.as_str() == agent_id)
    }
    /// The behaviour of `agent_id`: a party's, or that of a sender who is not a party (the
    /// SDK tracks every sender); `None` for an agent who has sent nothing and is no party.
    #[must_use]
    pub fn behavior(&self, agent_id: &str) -> Option<&Behavior<T>> {
        self.party(agent_id)
            .map(Party::behavior)
            .or_else(|| self.senders.iter().find(|(id, _)| id.as_str() == agent_id).map(|(_, b)| b))
    }

    /// The keys registered with [`Session::add_party`], as a [`KeyResolver`] to pass to
    /// [`Session::apply`] when the caller has no resolver of its own (a copy, so that the
    /// session can be borrowed mutably by `apply`). Parties registered without a key
    /// resolve to nothing.
    #[must_use]
    pub fn registered_keys(&self) -> RegisteredKeys<P> {
        let mut keys = Vec::new();
        for p in &self.parties {
            if let Some(k) = p.key {
                // Never full: at most one entry per party, and both hold `P`.
                let _ = keys.push((p.agent_id.clone(), k));
            }
        }
        RegisteredKeys { keys }
    }

    /// Applies one signed message and returns the new state.
    ///
    /// **Keys.** `keys` is the one source of the sender's key, as the reference SDK's
    /// mandatory `public_key_resolver`: the key it returns is the key that must verify (a
    /// rotated key replaces the registered one), and `None` rejects the message
    /// ([`Error::UnknownKey`]) even when [`Session::add_party`] registered a key for the
    /// sender (a revoked identity). Keys registered with `add_party` are used only when the
    /// caller passes them: `session.apply(msg, &session.registered_keys(), now)`.
    ///
    /// Checks, in the reference SDK's order: the message and its `from` are objects; a
    /// non-empty string `from.agent_id` and a `signature` that is not falsy; the sender's
    /// key (from `keys`, never from elsewhere); the signature; `session_id`, when present,
    /// equals this session's; `prev_hash`, when present, equals [`Session::tip`]; a known
    /// `type`; the session TTL; the transition table; the round cap for offers and
    /// counters; the offer TTL for an accept; a `negotiate.open` body is an object; for
    /// offers and counters, a well-formed offer body (SPEC §6); `session_id` and
    /// `prev_hash` present (SPEC requires them; the SDK does not); room to track a sender
    /// who is not a party.
    ///
    /// The `&'static str` of each error tells the SDK's exception apart, for hosts that
    /// mirror it: `Schema("message must be an object")` and `Schema("from must be an
    /// object")` (the SDK's `AttributeError`), `Schema("from.agent_id")` and
    /// `Schema("signature missing")` (its `InvalidSignatureError`), `Schema("type missing")`
    /// (its `KeyError`), `Schema("type")` (its `ValueError`), `Schema("open body must be an
    /// object")` (its `AttributeError`); a non-string `session_id` or `prev_hash` is a
    /// [`Error::Binding`] as in the SDK, an absent or `null` one a `Schema` error (SPEC
    /// requires both; the SDK skips the check).
    ///
    /// # Errors
    /// [`Error::Schema`] (missing member or malformed offer), [`Error::UnknownKey`],
    /// [`Error::Encoding`] or [`Error::Signature`] (a signature that does not decode or
    /// verify), [`Error::Binding`] (`"session_id"` or `"prev_hash"`),
    /// [`Error::Temporal`] (`"session expired"`, `"offer expired"`),
    /// [`Error::Transition`], [`Error::MaxRounds`], [`Error::InvalidArgument`] (a sender id
    /// longer than [`ID_CAPACITY`]), [`Error::Limit`] (`P` senders who are not parties
    /// tracked already). On any error the session is unchanged.
    pub fn apply<R: KeyResolver + ?Sized>(&mut self, msg: Value<'_>, keys: &R, now: Timestamp) -> Result<State> {
        if msg.kind() != Kind::Object {
            return Err(Error::Schema(crate::error::detail::MESSAGE_NOT_OBJECT));
        }
        if msg.get("from").is_some_and(|f| f.kind() != Kind::Object) {
            return Err(Error::Schema(crate::error::detail::FROM_NOT_OBJECT));
        }
        let sender = message::sender(msg)
            .ok()
            .filter(|s| !s.raw().is_empty())
            .ok_or(Error::Schema(crate::error::detail::SENDER_MISSING))?;
        if !msg.get("signature").is_some_and(behavior::is_truthy) {
            return Err(Error::Schema(crate::error::detail::SIGNATURE_MISSING));
        }
        let party = self.parties.iter().position(|p| sender.eq_str(&p.agent_id));
        let key = keys.resolve_prepared(sender).ok_or(Error::UnknownKey)?;
        // Any signature text that does not decode is one refusal,
        // `Encoding(detail::SIGNATURE_ENCODING)` (from `message::signature_from_value`).
        message::verify_signed_object_with(msg, key)?;
        // A present session_id or prev_hash is compared where the SDK compares it; an absent
        // (or null) one, which the SDK lets through, is refused after all the SDK's checks.
        let sid = msg.get("session_id").filter(|s| !s.is_null());
        if sid.is_some_and(|sid| !sid.as_str().is_some_and(|s| s.eq_str(&self.id))) {
            return Err(Error::Binding(crate::error::detail::SESSION_ID));
        }
        let prev = msg.get("prev_hash").filter(|p| !p.is_null());
        if let Some(p) = prev {
            if p.kind() != Kind::String {
                return Err(Error::Binding(crate::error::detail::PREV_HASH));
            }
            message::check_link(msg, &self.tip)?;
        }
        let ty = msg.get("type").ok_or(Error::Schema(crate::error::detail::TYPE_MISSING))?;
        let ty = ty.as_str().and_then(MessageType::parse).ok_or(Error::Schema("type"))?;
        if let Ok(deadline) = self.created_at.add_seconds(i64::from(self.timing.session_ttl)) {
            if now > deadline {
                return Err(Error::Temporal("session expired"));
            }
        }
        let next = transition(self.state, ty).ok_or(Error::Transition(ty.as_str()))?;
        if ty.is_round() && self.round_count >= self.timing.max_rounds {
            return Err(Error::MaxRounds);
        }
        if matches!(ty, MessageType::Accept) {
            if let Some(at) = self.last_offer_at {
                if at.add_seconds(i64::from(self.timing.offer_ttl)).is_ok_and(|d| now > d) {
                    return Err(Error::Temporal("offer expired"));
                }
            }
        }
        let body = msg.get("body");
        if ty == MessageType::Open && body.is_some_and(|b| b.kind() != Kind::Object) {
            return Err(Error::Schema(crate::error::detail::OPEN_BODY_NOT_OBJECT));
        }
        if ty.is_round() {
            offer::Offer::from_body(body.ok_or(Error::Schema("body"))?)?;
        }
        if sid.is_none() {
            return Err(Error::Schema("session_id"));
        }
        if prev.is_none() {
            return Err(Error::Schema("prev_hash"));
        }
        // A sender who is not a party is tracked too (the SDK's `_behaviors`): find its
        // slot, or make sure there is room for one.
        let tracked = match party {
            Some(_) => None,
            None => {
                let i = self.senders.iter().position(|(id, _)| sender.eq_str(id));
                if i.is_none() {
                    if self.senders.is_full() {
                        return Err(Error::Limit { kind: crate::error::Limit::Capacity, offset: 0 });
                    }
                    if sender.decoded_len() > ID_CAPACITY {
                        return Err(Error::InvalidArgument("agent id too long"));
                    }
                }
                i
            }
        };

        // Every check passed: build the next session on a copy, then commit.
        let mut s = self.clone();
        let mut hasher = Sha256Sink::new();
        jcs::write(msg, &mut crate::sink::Tee(&mut hasher, &mut s.transcript))?;
        s.tip = hasher.finish();
        s.message_count += 1;
        if ty == MessageType::Open {
            let terms = body.and_then(|b| b.get("terms"));
            s.terms_unsized =
                terms.is_some_and(|t| matches!(t.kind(), Kind::Number | Kind::True) && behavior::is_truthy(t));
            s.terms_count = match terms {
                Some(t) if t.kind() == Kind::String => t.as_str().map_or(0, |v| v.chars().count() as u32),
                Some(t) => t.len() as u32,
                None => 0,
            };
        }
        if ty.is_round() {
            s.round_count += 1;
            s.last_offer_at = Some(now);
        }
        match (party, tracked) {
            (Some(i), _) => {
                if let Some(p) = s.parties.get_mut(i) {
                    p.behavior.record(ty, msg);
                }
            }
            (None, Some(i)) => {
                if let Some((_, b)) = s.senders.get_mut(i) {
                    b.record(ty, msg);
                }
            }
            (None, None) => {
                let mut id = String::new();
                for c in sender.chars() {
                    id.push(c).map_err(|_| Error::InvalidArgument("agent id too long"))?;
                }
                let mut b = Behavior::new();
                b.record(ty, msg);
                s.senders.push((id, b)).map_err(|_| Error::Limit { kind: crate::error::Limit::Capacity, offset: 0 })?;
            }
        }
        if next != s.state && matches!(next, State::Agreed | State::Rejected) {
            s.concluded_at = Some(now);
        }
        s.state = next;
        *self = s;
        Ok(next)
    }

    /// The TTL elapsed: PROPOSED or ACTIVE becomes EXPIRED.
    ///
    /// # Errors
    /// [`Error::Transition`] from any other state.
    pub fn expire(&mut self, now: Timestamp) -> Result<()> {
        if !matches!(self.state, State::Proposed | State::Active) {
            return Err(Error::Transition("expire"));
        }
        self.state = State::Expired;
        self.concluded_at = Some(now);
        Ok(())
    }

    /// REJECTED or EXPIRED becomes DORMANT, flagged reactivatable.
    ///
    /// # Errors
    /// [`Error::Transition`] from any other state.
    pub fn make_dormant(&mut self) -> Result<()> {
        if !matches!(self.state, State::Rejected | State::Expired) {
            return Err(Error::Transition("make_dormant"));
        }
        self.state = State::Dormant;
        self.reactivatable = true;
        Ok(())
    }
}

/// Feeds the decoded characters of a string to a sink.
pub(crate) fn write_decoded<S: Sink + ?Sized>(s: Str<'_>, sink: &mut S) -> Result<()> {
    if let Some(plain) = s.as_plain() {
        return sink.write(plain.as_bytes());
    }
    let mut buf = [0u8; 4];
    for c in s.chars() {
        sink.write(c.encode_utf8(&mut buf).as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
