//! The Rust core alone, from bytes, timed in the same process as the wrapper calls, for
//! `bench/bench.py`: what a call through the wrapper costs over the core doing the same
//! work on the same machine at the same moment.

use std::time::Instant;

use concordia_core::message;
use concordia_core::preimage::{Whole, WithoutSignature};
use concordia_core::{jcs, Error};
use concordia_host::{Nodes, VecRefSink};
use pyo3::prelude::*;

use crate::errors::{core, new_err, Exc};
use crate::keys::key_pair_of;

/// One timed operation: a parse buffer and an output buffer, reused across runs.
type Op<'a> = dyn Fn(&mut Nodes, &mut Vec<u8>) -> Result<(), Error> + Send + Sync + 'a;

/// `_core_time(op, text, n, key_pair=None, public_keys=None) -> float`: seconds per
/// operation of the core alone over `n` runs, with the GIL released. `text` is JSON text;
/// `op` is `"canonical"` (parse and write RFC 8785), `"sign"` (parse, write the signing
/// preimage, sign with `key_pair`), `"verify"` (parse, verify the signature under the
/// sender's key from `public_keys`) or `"chain"` (parse a JSON array of messages, verify
/// links, session and every signature in order, one thread).
#[pyfunction]
#[pyo3(signature = (op, text, n, key_pair = None, public_keys = None))]
pub fn _core_time(
    py: Python<'_>,
    op: &str,
    text: &[u8],
    n: usize,
    key_pair: Option<&Bound<'_, PyAny>>,
    public_keys: Option<&Bound<'_, PyAny>>,
) -> PyResult<f64> {
    let kp = key_pair.map(key_pair_of).transpose()?;
    let keys = crate::owned_keys(public_keys)?;
    let bad = |what: &str| new_err(Exc::InvalidArgument, format!("_core_time: {what}"), Some("input"));
    let run: Box<Op<'_>> = match op {
        "canonical" => Box::new(|nodes, out| {
            out.clear();
            jcs::write_with(nodes.parse(text)?.root(), &Whole, &mut VecRefSink(out))
        }),
        "sign" => {
            let kp = kp.ok_or_else(|| bad("sign needs key_pair"))?;
            Box::new(move |nodes, out| {
                out.clear();
                jcs::write_with(nodes.parse(text)?.root(), &WithoutSignature, &mut VecRefSink(out))?;
                std::hint::black_box(kp.sign(out));
                Ok(())
            })
        }
        "verify" => Box::new(|nodes, _| message::verify_from_sender(nodes.parse(text)?.root(), &keys)),
        "chain" => Box::new(|nodes, _| {
            let doc = nodes.parse_transcript(text)?;
            message::verify_transcript(doc.root(), &keys).map(drop).map_err(|(_, e)| e)
        }),
        other => return Err(bad(&format!("unknown op {other:?}"))),
    };
    let r = py.detach(|| {
        let mut nodes = Nodes::new();
        let mut out = Vec::new();
        run(&mut nodes, &mut out)?;
        let t = Instant::now();
        for _ in 0..n.max(1) {
            run(&mut nodes, &mut out)?;
        }
        Ok(t.elapsed().as_secs_f64() / n.max(1) as f64)
    });
    core(r)
}
