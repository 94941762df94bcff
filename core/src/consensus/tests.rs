//! Tests of the Consensus venue primitives (one file per object under `tests/`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod artifact;
mod command;
mod credential;
mod digest;
mod invitation;
mod outcome_table;
mod polling;
mod room;

use crate::digest::Digest;
use crate::time::{parse_datetime, Timestamp};

/// A fixed revision digest for tests.
pub(super) fn rev_digest() -> Digest {
    super::digest::markdown_digest(b"# Agreement\n\nShip v2 on Friday.\n")
}

pub(super) fn ts(s: &str) -> Timestamp {
    parse_datetime(s).unwrap()
}
