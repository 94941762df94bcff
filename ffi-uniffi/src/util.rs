//! Buffer ownership and type conversion shared by the exports (no protocol logic).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use concordia_core::json::{Doc, Kind, Options};
use concordia_core::time::Timestamp;
use concordia_core::Error;
use concordia_host::Nodes;

/// Parses `input` under the one policy of every surface (`concordia_host::options`),
/// into nodes sized to the text (the host layer's sizing; exhaustion is an error).
pub(crate) fn parse<'a>(input: &'a [u8], nodes: &'a mut Nodes) -> Result<Doc<'a>, Error> {
    nodes.parse(input)
}

/// As `parse`, with reader options (the Consensus venue's RFC 8785 reading).
pub(crate) fn parse_with<'a>(input: &'a [u8], nodes: &'a mut Nodes, options: &Options) -> Result<Doc<'a>, Error> {
    nodes.parse_with(input, options)
}

/// Parses a key map (`{"agent_id": "<base64url key>", ...}`), which must be an object.
pub(crate) fn parse_keys<'a>(input: &'a [u8], nodes: &'a mut Nodes) -> Result<Doc<'a>, Error> {
    let doc = parse(input, nodes)?;
    if doc.root().kind() != Kind::Object {
        return Err(Error::Schema("keys must be an object of agent_id to public key"));
    }
    Ok(doc)
}

pub(crate) use concordia_host::write_vec;

/// Bytes the core writes as canonical JSON, as a `String`.
pub(crate) fn utf8(bytes: Vec<u8>) -> String {
    // The core writes only UTF-8 (it reads only UTF-8); the lossy path never runs.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A foreign timestamp (Swift `Date`, Kotlin `Instant`, Python `datetime`) as a core
/// `Timestamp`.
pub(crate) fn timestamp(t: SystemTime) -> Result<Timestamp, Error> {
    let out_of_range = Error::InvalidArgument("timestamp out of range");
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => {
            let secs = i64::try_from(d.as_secs()).map_err(|_| out_of_range)?;
            Timestamp::from_unix_nanos(secs, d.subsec_nanos())
        }
        Err(before) => {
            let d = before.duration();
            let secs = i64::try_from(d.as_secs()).map_err(|_| out_of_range)?;
            match d.subsec_nanos() {
                0 => Timestamp::from_unix_nanos(-secs, 0),
                n => {
                    Timestamp::from_unix_nanos(secs.checked_add(1).map(|s| -s).ok_or(out_of_range)?, 1_000_000_000 - n)
                }
            }
        }
    }
}

/// A core `Timestamp` as a foreign timestamp.
pub(crate) fn system_time(t: Timestamp) -> SystemTime {
    let (secs, nanos) = (t.unix_seconds(), t.subsec_nanos());
    if secs >= 0 {
        UNIX_EPOCH + Duration::new(secs.unsigned_abs(), nanos)
    } else {
        UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs()) + Duration::from_nanos(u64::from(nanos))
    }
}
