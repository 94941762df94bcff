//! Trust score and trust-weighted Reciprocal Rank Fusion.
//!
//! # Trust score
//!
//! A score `s` in `[0, 1]` has two parts.
//!
//! **Credential ceiling `c`** from the credential DAG (edges `issuer -> subject`, one per
//! verified credential). Trust anchors have authority 1; a subject's authority is the
//! best over its non-revoked incoming edges of `ATTENUATION * authority(issuer)` with
//! `ATTENUATION` = 0.5, along paths of at most [`MAX_DEPTH`] edges:
//!
//! ```text
//! auth(x) = 1                                              if x is an anchor
//!         = max { 0.5 * auth(e.issuer) : e.subject = x, e not revoked }   (0 if none)
//! c = auth(subject)
//! ```
//!
//! so an anchor-issued credential gives 0.5, one more hop 0.25. Cycles cannot raise a
//! value (each hop halves it), so the DAG need not be checked for acyclicity.
//!
//! **Interaction history**, folded event by event from `s0 = 0`:
//!
//! ```text
//! success:     s <- s + ALPHA * (c - s)   if s < c, else s     (ALPHA = 0.05)
//! failure:     s <- s * BETA                                   (BETA  = 0.5)
//! revocation:  s <- 0
//! always:      s <- min(s, c)
//! ```
//!
//! Rises slowly (each success closes 5% of the gap to the ceiling: 14 successes from 0 to
//! reach half of it), falls fast (one failure halves the score: from any score of at least
//! half the ceiling, regaining it takes at least 8 successes, 77 from 99% of it), and drops
//! to 0 at once on revocation. An agent with no credential path to an anchor has ceiling 0
//! and keeps score 0.
//!
//! # Ranking
//!
//! Reciprocal Rank Fusion with `k` = 60 and ranks from 1; a result missing from one list
//! contributes 0 for it:
//!
//! ```text
//! rrf   = 1 / (k + semantic_rank) + 1 / (k + fts_rank)
//! final = rrf * (1 + 0.3 * trust_score)
//! ```

use crate::error::{Error, Result};

/// Per-success step toward the ceiling.
pub const ALPHA: f64 = 0.05;
/// Multiplier applied by a failure.
pub const BETA: f64 = 0.5;
/// Authority kept per credential hop.
pub const ATTENUATION: f64 = 0.5;
/// Longest credential path considered.
pub const MAX_DEPTH: usize = 4;
/// Most credential edges [`credential_ceiling`] accepts.
pub const MAX_EDGES: usize = 256;
/// The RRF constant.
pub const RRF_K: f64 = 60.0;
/// Weight of trust in the final score.
pub const TRUST_WEIGHT: f64 = 0.3;

/// One verified credential: `issuer` vouches for `subject`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge<'a> {
    /// Issuer DID.
    pub issuer: &'a str,
    /// Subject DID.
    pub subject: &'a str,
    /// Whether the credential has been revoked.
    pub revoked: bool,
}

/// The credential ceiling `c` of `subject` (see the module documentation).
///
/// # Errors
/// [`Error::Limit`] (`Capacity`) for more than [`MAX_EDGES`] edges.
pub fn credential_ceiling(subject: &str, edges: &[Edge<'_>], anchors: &[&str]) -> Result<f64> {
    if edges.len() > MAX_EDGES {
        return Err(Error::limit(crate::error::Limit::Capacity, 0));
    }
    let is_anchor = |d: &str| anchors.contains(&d);
    if is_anchor(subject) {
        return Ok(1.0);
    }
    // via[e] = best authority reaching edge e's subject through e, over paths of <= round edges.
    let mut via = [0.0f64; MAX_EDGES];
    for _ in 0..MAX_DEPTH {
        let prev = via;
        for (i, e) in edges.iter().enumerate() {
            if e.revoked {
                continue;
            }
            let issuer_auth = if is_anchor(e.issuer) {
                1.0
            } else {
                edges
                    .iter()
                    .zip(prev.iter())
                    .filter(|(f, _)| f.subject == e.issuer)
                    .map(|(_, v)| *v)
                    .fold(0.0, f64::max)
            };
            if let Some(slot) = via.get_mut(i) {
                *slot = ATTENUATION * issuer_auth;
            }
        }
    }
    Ok(edges.iter().zip(via.iter()).filter(|(e, _)| e.subject == subject).map(|(_, v)| *v).fold(0.0, f64::max))
}

/// An interaction outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A successful, valid interaction.
    Success,
    /// A failed interaction or a validation error.
    Failure,
    /// A credential of the agent was revoked.
    Revocation,
}

/// Applies one event to `score` under ceiling `ceiling` (both clamped to `[0, 1]`; NaN
/// reads as 0).
#[must_use]
pub fn update(score: f64, ceiling: f64, event: Event) -> f64 {
    let c = clamp01(ceiling);
    let s = clamp01(score).min(c);
    let next = match event {
        Event::Success if s < c => s + ALPHA * (c - s),
        Event::Success => s,
        Event::Failure => s * BETA,
        Event::Revocation => 0.0,
    };
    clamp01(next).min(c)
}

/// Folds a history from score 0.
#[must_use]
pub fn score(ceiling: f64, history: impl IntoIterator<Item = Event>) -> f64 {
    history.into_iter().fold(0.0, |s, e| update(s, ceiling, e))
}

fn clamp01(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// `1 / (k + semantic_rank) + 1 / (k + fts_rank)`, a missing rank contributing 0.
///
/// # Errors
/// [`Error::InvalidArgument`] for a rank of 0 (ranks start at 1).
pub fn rrf(semantic_rank: Option<u32>, fts_rank: Option<u32>) -> Result<f64> {
    let term = |r: Option<u32>| match r {
        None => Ok(0.0),
        Some(0) => Err(Error::InvalidArgument("ranks start at 1")),
        Some(r) => Ok(1.0 / (RRF_K + f64::from(r))),
    };
    Ok(term(semantic_rank)? + term(fts_rank)?)
}

/// `rrf * (1 + 0.3 * trust_score)`.
///
/// # Errors
/// [`Error::InvalidArgument`] for a trust score outside `[0, 1]` or NaN.
pub fn final_score(rrf: f64, trust_score: f64) -> Result<f64> {
    if !(0.0..=1.0).contains(&trust_score) {
        return Err(Error::InvalidArgument("trust_score must be in [0, 1]"));
    }
    Ok(rrf * (1.0 + TRUST_WEIGHT * trust_score))
}

/// One search result to rank.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// Rank in the semantic list (from 1), if present there.
    pub semantic_rank: Option<u32>,
    /// Rank in the full-text list (from 1), if present there.
    pub fts_rank: Option<u32>,
    /// Trust score in `[0, 1]`.
    pub trust_score: f64,
}

/// A ranked result: index into the input, and its scores.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Ranked {
    /// Position of the candidate in the input slice.
    pub index: usize,
    /// Its RRF score.
    pub rrf: f64,
    /// Its final score.
    pub final_score: f64,
}

/// Scores `candidates` into `out`, ordered by `final` descending (ties: higher `rrf`, then
/// input order); returns the count.
///
/// # Errors
/// [`Error::BufferTooSmall`] when `out` is shorter than `candidates`; as [`rrf`] and
/// [`final_score`] for bad inputs.
pub fn rank(candidates: &[Candidate], out: &mut [Ranked]) -> Result<usize> {
    let n = candidates.len();
    let out = out.get_mut(..n).ok_or(Error::BufferTooSmall { needed: n })?;
    for (i, (c, slot)) in candidates.iter().zip(out.iter_mut()).enumerate() {
        let r = rrf(c.semantic_rank, c.fts_rank)?;
        *slot = Ranked { index: i, rrf: r, final_score: final_score(r, c.trust_score)? };
    }
    out.sort_unstable_by(|a, b| {
        b.final_score.total_cmp(&a.final_score).then(b.rrf.total_cmp(&a.rrf)).then(a.index.cmp(&b.index))
    });
    Ok(n)
}
