//! The negotiation session state machine (SPEC §5) as an object.

use concordia_core::session::{Role, Timing};
use concordia_core::sign::PublicKey;
use wasm_bindgen::prelude::*;

use crate::errors::JsResult;
use crate::util::{date, named, opt_u32, timestamp, Obj};

/// A negotiation session: state, counters, transcript tip and hash, up to 8 parties with
/// their behaviour summaries (`concordia_host::HostSession`, as on every surface). States
/// and roles are the SDK's lowercase names (`"proposed"`, `"initiator"`, ...).
#[wasm_bindgen]
pub struct Session {
    pub(crate) inner: concordia_host::HostSession,
    nodes: concordia_host::session::SessionNodes,
}

#[wasm_bindgen]
impl Session {
    /// A session in `proposed` with identifier `id` (at most 128 bytes), created at
    /// `createdAt` (a `Date`), with `timing` `{sessionTtl, offerTtl, maxRounds}` in seconds
    /// (each optional; the defaults are the core's `Timing::default()`, docs/limits.md).
    ///
    /// # Errors
    /// `InputError` for an identifier over 128 bytes or a bad time or timing.
    #[wasm_bindgen(constructor)]
    pub fn new(id: &str, created_at: &JsValue, timing: &JsValue) -> JsResult<Session> {
        let mut t = Timing::default();
        if !timing.is_undefined() && !timing.is_null() {
            let what = "timing values must be whole seconds from 0 to 2^32 - 1";
            t.session_ttl = opt_u32(timing, "sessionTtl", what)?.unwrap_or(t.session_ttl);
            t.offer_ttl = opt_u32(timing, "offerTtl", what)?.unwrap_or(t.offer_ttl);
            t.max_rounds = opt_u32(timing, "maxRounds", what)?.unwrap_or(t.max_rounds);
        }
        let inner = concordia_host::HostSession::new(id, t, timestamp(created_at)?)?;
        Ok(Session { inner, nodes: concordia_host::session::SessionNodes::default() })
    }

    /// Registers a party with its role (`initiator`, `responder`, `mediator`, `witness`)
    /// and, optionally, its public key (base64 or base64url), which `apply` uses when it is
    /// given no `keysJson`. Registering an agent again updates its role and key.
    ///
    /// # Errors
    /// `InputError` for an unknown role or malformed key, `LimitError` for a ninth party.
    #[wasm_bindgen(js_name = addParty)]
    pub fn add_party(&mut self, agent_id: &str, role: &str, public_key: Option<String>) -> JsResult<()> {
        let role = named(role, &Role::ALL, Role::as_str, "role must be initiator, responder, mediator or witness")?;
        let key = public_key.as_deref().map(PublicKey::from_b64).transpose()?;
        self.inner.add_party(agent_id, role, key)?;
        Ok(())
    }

    /// Applies one signed message (JSON text) at time `now` and returns the new state.
    /// `keysJson` (an object of `agent_id` to base64url key), when given, is the only source
    /// of the sender's key, as the reference SDK's resolver; without it the keys given to
    /// `addParty` are used. A message that fails any check leaves the session as it was.
    ///
    /// # Errors
    /// The core's verdict (`SignatureError`, `BindingError`, `TransitionError`, ...).
    pub fn apply(&mut self, message_json: &str, now: &JsValue, keys_json: Option<String>) -> JsResult<String> {
        let keys = keys_json.as_deref().map(str::as_bytes);
        let next = self.nodes.apply_text(&mut self.inner, message_json.as_bytes(), keys, timestamp(now)?)?;
        Ok(next.as_str().to_string())
    }

    /// The TTL elapsed: `proposed` or `active` becomes `expired` at `now`.
    ///
    /// # Errors
    /// `TransitionError` from any other state.
    pub fn expire(&mut self, now: &JsValue) -> JsResult<()> {
        let now = timestamp(now)?;
        self.inner.expire(now)?;
        Ok(())
    }

    /// `rejected` or `expired` becomes `dormant`, flagged reactivatable.
    ///
    /// # Errors
    /// `TransitionError` from any other state.
    #[wasm_bindgen(js_name = makeDormant)]
    pub fn make_dormant(&mut self) -> JsResult<()> {
        self.inner.make_dormant()?;
        Ok(())
    }

    /// The session identifier.
    pub fn id(&self) -> String {
        self.inner.id().to_string()
    }

    /// The current state.
    pub fn state(&self) -> String {
        self.inner.state().as_str().to_string()
    }

    /// The timing parameters `{sessionTtl, offerTtl, maxRounds}`.
    pub fn timing(&self) -> JsValue {
        let t = self.inner.timing();
        Obj::new().set("sessionTtl", t.session_ttl).set("offerTtl", t.offer_ttl).set("maxRounds", t.max_rounds).build()
    }

    /// Offers and counters applied so far.
    #[wasm_bindgen(js_name = roundCount)]
    pub fn round_count(&self) -> u32 {
        self.inner.round_count()
    }

    /// Messages applied so far.
    #[wasm_bindgen(js_name = messageCount)]
    #[allow(clippy::cast_precision_loss)] // counts stay below 2^53
    pub fn message_count(&self) -> f64 {
        self.inner.message_count() as f64
    }

    /// The tip, `sha256:<hex>`: the last applied message's hash (the next message's
    /// `prev_hash`, an attestation's `chain_head`).
    pub fn tip(&self) -> String {
        self.inner.tip().to_prefixed().as_str().to_string()
    }

    /// The running transcript hash over every applied message.
    #[wasm_bindgen(js_name = transcriptHash)]
    pub fn transcript_hash(&self) -> String {
        self.inner.transcript_hash().to_prefixed().as_str().to_string()
    }

    /// When the session was created.
    #[wasm_bindgen(js_name = createdAt)]
    pub fn created_at(&self) -> js_sys::Date {
        date(self.inner.created_at())
    }

    /// When it reached a terminal state (`undefined` until then).
    #[wasm_bindgen(js_name = concludedAt)]
    pub fn concluded_at(&self) -> Option<js_sys::Date> {
        self.inner.concluded_at().map(date)
    }

    /// Whether a rejected or expired session was flagged reactivatable.
    #[wasm_bindgen(js_name = isReactivatable)]
    pub fn is_reactivatable(&self) -> bool {
        self.inner.is_reactivatable()
    }

    /// The registered parties, in registration order: `{agentId, role, publicKey,
    /// offersMade, concessions, concessionMagnitude, reasoningProvided, withdrawal}`.
    pub fn parties(&self) -> Vec<JsValue> {
        self.inner
            .parties()
            .iter()
            .map(|p| {
                let b = p.behavior();
                let key = p.public_key().map_or(JsValue::UNDEFINED, |k| k.to_b64url().as_str().into());
                Obj::new()
                    .set("agentId", p.agent_id())
                    .set("role", p.role().as_str())
                    .set("publicKey", key)
                    .set("offersMade", b.offers_made)
                    .set("concessions", b.concessions)
                    .set("concessionMagnitude", b.concession_magnitude)
                    .set("reasoningProvided", b.reasoning_provided)
                    .set("withdrawal", b.withdrawal)
                    .build()
            })
            .collect()
    }
}
