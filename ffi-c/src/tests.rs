//! Unit tests of the boundary: code mapping, panic catching, size-and-retry.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::undocumented_unsafe_blocks)]

use concordia_core::error::{Limit, Syntax};
use concordia_core::Error;

use crate::boundary::{guard, last_error, write_sized};
use crate::result::{code_of, concordia_result};
use crate::*;

/// Every error the core has today, one of each variant and kind.
fn all_core_errors() -> Vec<Error> {
    let syntax = [
        Syntax::UnexpectedEnd,
        Syntax::UnexpectedByte,
        Syntax::TrailingBytes,
        Syntax::InvalidUtf8,
        Syntax::ControlCharacter,
        Syntax::InvalidEscape,
        Syntax::LoneSurrogate,
        Syntax::InvalidNumber,
        Syntax::NumberOutOfRange,
        Syntax::UnsafeInteger,
        Syntax::NegativeZero,
        Syntax::DuplicateKey,
        Syntax::ByteOrderMark,
    ];
    let limits = [Limit::Depth, Limit::Nodes, Limit::Size, Limit::Capacity, Limit::Steps, Limit::Memory];
    let mut v: Vec<Error> = syntax.iter().map(|&kind| Error::Json { kind, offset: 3 }).collect();
    v.extend(limits.iter().map(|&kind| Error::Limit { kind, offset: 3 }));
    v.extend([
        Error::BufferTooSmall { needed: 9 },
        Error::Encoding("x"),
        Error::Signature,
        Error::UnknownKey,
        Error::Schema("x"),
        Error::Shape { what: "x", offset: 3 },
        Error::Digest("x"),
        Error::Binding("x"),
        Error::Temporal("x"),
        Error::Privacy("x"),
        Error::Transition("x"),
        Error::MaxRounds,
        Error::InvalidArgument("x"),
    ]);
    v
}

#[test]
fn every_core_error_has_its_own_code_with_the_same_class() {
    let mut seen = std::collections::HashSet::new();
    for e in all_core_errors() {
        let code = code_of(&e);
        assert!(
            !matches!(
                code,
                concordia_result::CONCORDIA_INTERNAL
                    | concordia_result::CONCORDIA_JSON_OTHER
                    | concordia_result::CONCORDIA_LIMIT_OTHER
            ),
            "{e:?} falls into a catch-all code"
        );
        assert!(seen.insert(code as u32), "{e:?} shares code {}", code as u32);
        let rep = code.representative().expect("core codes have a representative");
        assert_eq!(code_of(&rep), code, "{e:?}");
        assert_eq!(rep.class(), e.class(), "{e:?}");
        assert_eq!(code.class(), e.class().as_str(), "{e:?}");
    }
}

#[test]
fn host_error_code_names_are_the_c_names() {
    // The npm package reports `concordia_host::error_code` as `error.code`: the same name.
    for e in all_core_errors() {
        assert_eq!(concordia_host::error_code(&e), format!("{:?}", code_of(&e)), "{e:?}");
    }
}

#[test]
fn codes_are_in_their_blocks_and_unique() {
    let mut seen = std::collections::HashSet::new();
    for c in concordia_result::ALL {
        let v = c as u32;
        assert!(seen.insert(v), "duplicate {v}");
        assert_eq!(concordia_result::from_u32(v), Some(c));
        assert!(!c.message().is_empty());
        let block = v / 100;
        let class = c.class();
        match block {
            0 => assert_eq!(class, "ok"),
            1 => assert!(class == "input" || class == "limit", "{v} {class}"),
            2 => assert_eq!(class, "input"),
            3 => assert!(class == "signature" || class == "input", "{v} {class}"),
            4 => {
                assert!(["schema", "digest", "binding", "temporal", "privacy", "transition", "replay"].contains(&class))
            }
            5 => assert_eq!(class, "limit"),
            9 => assert_eq!(class, "internal"),
            _ => panic!("code {v} outside the blocks"),
        }
    }
    // Pinned numbers: never renumbered.
    assert_eq!(concordia_result::CONCORDIA_BUFFER_TOO_SMALL as u32, 101);
    assert_eq!(concordia_result::CONCORDIA_JSON_DUPLICATE_KEY as u32, 211);
    assert_eq!(concordia_result::CONCORDIA_SIGNATURE as u32, 300);
    assert_eq!(concordia_result::CONCORDIA_TRANSITION as u32, 405);
    assert_eq!(concordia_result::CONCORDIA_AIP_REPLAY as u32, 408);
    assert_eq!(concordia_result::CONCORDIA_AIP_REPLAY.class(), "replay");
    assert_eq!(concordia_result::CONCORDIA_PANIC as u32, 900);
    assert_eq!(concordia_result::from_u32(7), None);
}

#[test]
fn a_panic_is_caught_at_the_boundary() {
    let code = guard(|| panic!("boom"));
    assert_eq!(code, concordia_result::CONCORDIA_PANIC);
    assert_eq!(last_error(), None);
    // The library keeps working afterwards.
    let mut n = 0usize;
    let mut out = [0u8; 16];
    assert_eq!(
        unsafe { concordia_canonicalize(b"[1]".as_ptr(), 3, out.as_mut_ptr(), 16, &mut n) },
        concordia_result::CONCORDIA_OK
    );
    assert_eq!(&out[..n], b"[1]");
}

#[test]
fn last_error_follows_each_call() {
    let mut n = 0usize;
    let mut out = [0u8; 64];
    let bad = br#"{"a": 1, "a": 2}"#;
    let r = unsafe { concordia_canonicalize(bad.as_ptr(), bad.len(), out.as_mut_ptr(), 64, &mut n) };
    assert_eq!(r, concordia_result::CONCORDIA_JSON_DUPLICATE_KEY);
    let mut off = 0usize;
    assert_eq!(unsafe { concordia_last_error_offset(&mut off) }, concordia_result::CONCORDIA_OK);
    assert_eq!(off, 9);
    // A NULL failure clears it: it has no core error.
    let r = unsafe { concordia_canonicalize(std::ptr::null(), 1, out.as_mut_ptr(), 64, &mut n) };
    assert_eq!(r, concordia_result::CONCORDIA_NULL_ARGUMENT);
    assert_eq!(unsafe { concordia_last_error_offset(&mut off) }, concordia_result::CONCORDIA_NOT_AVAILABLE);
}

#[test]
fn size_query_reports_the_final_length_of_multi_pass_writers() {
    // A writer that, like a two-pass signer, first reports a shorter intermediate length.
    let calls = std::cell::Cell::new(0);
    let mut out = [0u8; 4];
    let mut n = 0usize;
    let r = write_sized(&mut out, &mut n, |buf| {
        calls.set(calls.get() + 1);
        if buf.len() < 10 {
            Err(Error::BufferTooSmall { needed: 10 })
        } else if buf.len() < 25 {
            Err(Error::BufferTooSmall { needed: 25 })
        } else {
            Ok(25)
        }
    });
    assert!(r.is_err());
    assert_eq!(n, 25);
    assert_eq!(calls.get(), 3);
}

#[test]
fn sign_object_size_query_is_exact() {
    let mut kp = std::ptr::null_mut();
    let seed = [7u8; 32];
    assert_eq!(unsafe { concordia_keypair_from_seed(seed.as_ptr(), 32, &mut kp) }, concordia_result::CONCORDIA_OK);
    let obj = br#"{"b": [1, 2, 3], "a": "x"}"#;
    let mut need = 0usize;
    let r = unsafe { concordia_sign_object(kp, obj.as_ptr(), obj.len(), std::ptr::null_mut(), 0, &mut need) };
    assert_eq!(r, concordia_result::CONCORDIA_BUFFER_TOO_SMALL);
    let mut buf = vec![0u8; need];
    let mut n = 0usize;
    let r = unsafe { concordia_sign_object(kp, obj.as_ptr(), obj.len(), buf.as_mut_ptr(), buf.len(), &mut n) };
    assert_eq!(r, concordia_result::CONCORDIA_OK);
    assert_eq!(n, need);
    unsafe { concordia_keypair_free(kp) };
}

#[test]
fn version_constants_match_the_package() {
    assert_eq!(CONCORDIA_VERSION_MAJOR.to_string(), env!("CARGO_PKG_VERSION_MAJOR"));
    assert_eq!(CONCORDIA_VERSION_MINOR.to_string(), env!("CARGO_PKG_VERSION_MINOR"));
    assert_eq!(CONCORDIA_VERSION_PATCH.to_string(), env!("CARGO_PKG_VERSION_PATCH"));
    assert_eq!(
        CONCORDIA_VERSION_NUMBER,
        CONCORDIA_VERSION_MAJOR * 10000 + CONCORDIA_VERSION_MINOR * 100 + CONCORDIA_VERSION_PATCH
    );
    assert_eq!(CONCORDIA_PROFILE_COUNT, concordia_core::profiles::Profile::ALL.len());
}
