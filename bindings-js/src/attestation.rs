//! Reputation attestations (SPEC §9.6): generate from a concluded session, verify.

use concordia_core::attestation::{self, Params, SetBinding, Signer, Validity};
use concordia_core::sign::KeyPair as CoreKeyPair;
use concordia_core::Error;
use js_sys::{Function, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::errors::JsResult;
use crate::session::Session;
use crate::util::{elements, get, opt_string, opt_u32, string, timestamp, utf8, Obj};

/// The signers' key pairs, by agent id.
struct Signers(Vec<(String, CoreKeyPair)>);

impl Signer for Signers {
    fn key_pair(&self, agent_id: &str) -> Option<&CoreKeyPair> {
        self.0.iter().find(|(id, _)| id == agent_id).map(|(_, kp)| kp)
    }
}

/// `{agentId, keyPair}`: the key pair is read through its public `seed()` method, so the
/// caller's `KeyPair` object stays its own.
fn signer(v: &JsValue) -> JsResult<(String, CoreKeyPair)> {
    let what = "a signer is {agentId, keyPair} with a KeyPair";
    let agent_id = string(v, "agentId", what)?;
    let kp = get(v, "keyPair")?;
    let seed_fn = get(&kp, "seed")?.dyn_into::<Function>().map_err(|_| Error::InvalidArgument(what))?;
    let seed = seed_fn.call0(&kp).map_err(|_| Error::InvalidArgument(what))?;
    let seed = seed.dyn_into::<Uint8Array>().map_err(|_| Error::InvalidArgument(what))?.to_vec();
    let mut seed: [u8; 32] = seed.as_slice().try_into().map_err(|_| Error::InvalidArgument(what))?;
    let kp = CoreKeyPair::from_seed(&seed);
    seed.fill(0);
    Ok((agent_id, kp))
}

/// `{kind: "absolute", from, until}`, `{kind: "relative", from, durationSeconds}` or
/// `{kind: "window", start, end, durationSeconds}` (times are `Date`s).
fn validity(v: &JsValue) -> JsResult<Validity> {
    let what = "validity.kind must be absolute, relative or window";
    let seconds = |v: &JsValue| -> JsResult<u32> {
        opt_u32(v, "durationSeconds", "validity.durationSeconds must be whole seconds")?
            .ok_or_else(|| Error::InvalidArgument("validity.durationSeconds is required").into())
    };
    Ok(match string(v, "kind", what)?.as_str() {
        "absolute" => Validity::Absolute { from: timestamp(&get(v, "from")?)?, until: timestamp(&get(v, "until")?)? },
        "relative" => Validity::Relative { from: timestamp(&get(v, "from")?)?, duration_seconds: seconds(v)? },
        "window" => Validity::Window {
            start: timestamp(&get(v, "start")?)?,
            end: timestamp(&get(v, "end")?)?,
            duration_seconds: seconds(v)?,
        },
        _ => return Err(Error::InvalidArgument(what).into()),
    })
}

/// Generates the signed, countersigned attestation of the concluded `session` (canonical
/// JSON). `params` is `{attestationId, now, validity, resolutionMechanism? ("direct"),
/// category?, valueRange?}`; `signers` is an array of `{agentId, keyPair}`. Each party whose
/// key is among the signers signs its record and countersigns; the others get
/// `"signature": ""`.
///
/// # Errors
/// `TransitionError` for a session that has not concluded, `PrivacyError` for raw deal
/// terms in a text, `InputError` for a bad parameter.
#[wasm_bindgen(js_name = generateAttestation)]
pub fn generate_attestation(session: &Session, params: &JsValue, signers: &JsValue) -> JsResult<String> {
    let attestation_id = string(params, "attestationId", "params.attestationId must be a string")?;
    let now = timestamp(&get(params, "now")?)?;
    let validity = validity(&get(params, "validity")?)?;
    let resolution = opt_string(params, "resolutionMechanism", "params.resolutionMechanism must be a string")?;
    let category = opt_string(params, "category", "params.category must be a string")?;
    let value_range = opt_string(params, "valueRange", "params.valueRange must be a string")?;
    let signers = Signers(
        elements(signers, "signers must be an array of {agentId, keyPair}")?
            .iter()
            .map(signer)
            .collect::<JsResult<_>>()?,
    );
    let p = Params {
        attestation_id: &attestation_id,
        now,
        validity,
        category: category.as_deref(),
        value_range: value_range.as_deref(),
        resolution_mechanism: resolution.as_deref().unwrap_or("direct"),
    };
    Ok(utf8(concordia_host::write_vec(4096, |buf| attestation::generate(&session.inner, &p, &signers, buf))?))
}

/// Verifies an attestation: its schema, every party signature and countersignature and,
/// given `transcriptJson` (a JSON array of the session's messages), that the transcript
/// verifies under the same keys and is the one the attestation binds. Returns `{parties,
/// countersignatures, binding}` with `binding` one of `bound`, `unchecked`,
/// `legacy-unbound`.
///
/// # Errors
/// The core's verdict (`SchemaError`, `SignatureError`, `BindingError`, ...).
#[wasm_bindgen(js_name = verifyAttestation)]
pub fn verify_attestation(
    attestation_json: &str,
    keys_json: &str,
    transcript_json: Option<String>,
) -> JsResult<JsValue> {
    let (mut an, mut kn, mut tn) =
        (concordia_host::Nodes::new(), concordia_host::Nodes::new(), concordia_host::Nodes::new());
    let att = an.parse(attestation_json.as_bytes())?;
    let keys = kn.parse(keys_json.as_bytes())?;
    concordia_host::KeyMap::from_value(keys.root())?;
    let transcript = match &transcript_json {
        Some(t) => Some(tn.parse_transcript(t.as_bytes())?.root()),
        None => None,
    };
    let v = attestation::verify(att.root(), keys.root(), transcript)?;
    let binding = match v.binding {
        SetBinding::Bound => "bound",
        SetBinding::Unchecked => "unchecked",
        SetBinding::LegacyUnbound => "legacy-unbound",
    };
    #[allow(clippy::cast_precision_loss)]
    Ok(Obj::new()
        .set("parties", v.parties as f64)
        .set("countersignatures", v.countersignatures as f64)
        .set("binding", binding)
        .build())
}
