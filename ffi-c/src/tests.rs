//! Unit tests of the boundary: code mapping, panic catching, size-and-retry, and the pointer
//! conversions (NULL with a length, length 0, the isize bound, too-small buffers, handles).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

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
        concordia_canonicalize(b"[1]".as_ptr(), 3, out.as_mut_ptr(), 16, &mut n),
        concordia_result::CONCORDIA_OK
    );
    assert_eq!(&out[..n], b"[1]");
}

#[test]
fn last_error_follows_each_call() {
    let mut n = 0usize;
    let mut out = [0u8; 64];
    let bad = br#"{"a": 1, "a": 2}"#;
    let r = concordia_canonicalize(bad.as_ptr(), bad.len(), out.as_mut_ptr(), 64, &mut n);
    assert_eq!(r, concordia_result::CONCORDIA_JSON_DUPLICATE_KEY);
    let mut off = 0usize;
    assert_eq!(concordia_last_error_offset(&mut off), concordia_result::CONCORDIA_OK);
    assert_eq!(off, 9);
    // A NULL failure clears it: it has no core error.
    let r = concordia_canonicalize(std::ptr::null(), 1, out.as_mut_ptr(), 64, &mut n);
    assert_eq!(r, concordia_result::CONCORDIA_NULL_ARGUMENT);
    assert_eq!(concordia_last_error_offset(&mut off), concordia_result::CONCORDIA_NOT_AVAILABLE);
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
    assert_eq!(concordia_keypair_from_seed(seed.as_ptr(), 32, &mut kp), concordia_result::CONCORDIA_OK);
    let obj = br#"{"b": [1, 2, 3], "a": "x"}"#;
    let mut need = 0usize;
    let r = concordia_sign_object(kp, obj.as_ptr(), obj.len(), std::ptr::null_mut(), 0, &mut need);
    assert_eq!(r, concordia_result::CONCORDIA_BUFFER_TOO_SMALL);
    let mut buf = vec![0u8; need];
    let mut n = 0usize;
    let r = concordia_sign_object(kp, obj.as_ptr(), obj.len(), buf.as_mut_ptr(), buf.len(), &mut n);
    assert_eq!(r, concordia_result::CONCORDIA_OK);
    assert_eq!(n, need);
    concordia_keypair_free(kp);
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

// ------------------------------------------------------------------ the pointer helpers

use crate::boundary::{
    bytes_in, bytes_out, copy_out, handle_free, handle_mut, handle_new, handle_ref, in_ref, opt_in, opt_out, out_ref,
    slice_in, slice_out, store_len, str_in, Fail,
};

fn code(f: Fail) -> concordia_result {
    match f {
        Fail::Code(c) => c,
        Fail::Core(e) => code_of(&e),
    }
}

#[test]
fn inputs_allow_null_only_with_length_zero() {
    assert_eq!(bytes_in(std::ptr::null(), 0).unwrap(), b"");
    assert_eq!(str_in(std::ptr::null(), 0).unwrap(), "");
    assert_eq!(slice_in::<concordia_str>(std::ptr::null(), 0).unwrap().len(), 0);
    assert_eq!(code(bytes_in(std::ptr::null(), 1).unwrap_err()), concordia_result::CONCORDIA_NULL_ARGUMENT);
    assert_eq!(code(str_in(std::ptr::null(), 5).unwrap_err()), concordia_result::CONCORDIA_NULL_ARGUMENT);
    let none = concordia_str { ptr: std::ptr::null(), len: 3 };
    assert_eq!(code(none.text().unwrap_err()), concordia_result::CONCORDIA_NULL_ARGUMENT);
    assert_eq!(none.opt_text().unwrap(), None, "a NULL optional text is absent, its length ignored");
    let empty = concordia_str { ptr: std::ptr::null(), len: 0 };
    assert_eq!(empty.text().unwrap(), "");
    assert_eq!(code(empty.required_text().unwrap_err()), concordia_result::CONCORDIA_NULL_ARGUMENT);
}

#[test]
fn inputs_read_exactly_their_length() {
    let data = *b"abcdef";
    assert_eq!(bytes_in(data.as_ptr(), 3).unwrap(), b"abc");
    // A non-NULL pointer with length 0 is an empty input, whatever it points to.
    assert_eq!(bytes_in(data.as_ptr(), 0).unwrap(), b"");
    let text = concordia_str { ptr: data.as_ptr().wrapping_add(2), len: 2 };
    assert_eq!(text.required_text().unwrap(), "cd");
    assert_eq!(text.opt_text().unwrap(), Some("cd"));
    let parts = [text, concordia_str { ptr: data.as_ptr(), len: 1 }];
    let got: Vec<&str> = slice_in(parts.as_ptr(), 2).unwrap().iter().map(|s| s.text().unwrap()).collect();
    assert_eq!(got, ["cd", "a"]);
}

#[test]
fn inputs_refuse_lengths_beyond_isize_and_text_that_is_not_utf8() {
    let b = [0u8; 1];
    let too_long = isize::MAX as usize + 1;
    assert_eq!(code(bytes_in(b.as_ptr(), too_long).unwrap_err()), concordia_result::CONCORDIA_INVALID_ARGUMENT);
    // The size check counts bytes, not elements (16 bytes per concordia_str).
    let parts = [concordia_str { ptr: b.as_ptr(), len: 1 }];
    let r = slice_in(parts.as_ptr(), isize::MAX as usize / 8);
    assert_eq!(code(r.unwrap_err()), concordia_result::CONCORDIA_INVALID_ARGUMENT);
    let bad = [0xffu8, 0xfe];
    assert_eq!(code(str_in(bad.as_ptr(), 2).unwrap_err()), concordia_result::CONCORDIA_INVALID_ARGUMENT);
    // Bytes are not text: the same input is a valid byte range.
    assert_eq!(bytes_in(bad.as_ptr(), 2).unwrap(), bad);
}

#[test]
fn output_buffers_allow_null_only_as_a_size_query() {
    assert!(bytes_out(std::ptr::null_mut(), 0).unwrap().is_empty());
    assert_eq!(code(bytes_out(std::ptr::null_mut(), 1).unwrap_err()), concordia_result::CONCORDIA_NULL_ARGUMENT);
    let mut b = [0u8; 4];
    let r = bytes_out(b.as_mut_ptr(), isize::MAX as usize + 1);
    assert_eq!(code(r.unwrap_err()), concordia_result::CONCORDIA_INVALID_ARGUMENT);
    let mut ranked = [crate::concordia_aip_ranked::default(); 2];
    assert_eq!(slice_out(ranked.as_mut_ptr(), 2).unwrap().len(), 2);
    let r = slice_out(ranked.as_mut_ptr(), isize::MAX as usize / 8);
    assert_eq!(code(r.unwrap_err()), concordia_result::CONCORDIA_INVALID_ARGUMENT);
}

#[test]
fn the_size_query_reports_the_length_and_writes_nothing() {
    let mut n = 99usize;
    let out = bytes_out(std::ptr::null_mut(), 0).unwrap();
    let r = copy_out(b"hello", out, &mut n);
    assert_eq!(code(r.unwrap_err()), concordia_result::CONCORDIA_BUFFER_TOO_SMALL);
    assert_eq!(n, 5);
}

#[test]
fn a_too_small_buffer_reports_the_length_and_nothing_is_written_past_its_capacity() {
    // The caller's memory is 8 bytes; it says the buffer has 3.
    let mut mem = [0xaau8; 8];
    let mut n = 0usize;
    let out = bytes_out(mem.as_mut_ptr(), 3).unwrap();
    assert_eq!(code(copy_out(b"hello", out, &mut n).unwrap_err()), concordia_result::CONCORDIA_BUFFER_TOO_SMALL);
    assert_eq!(n, 5);
    assert_eq!(mem, [0xaa; 8], "a refused copy writes nothing");
    // Through an export: the canonical form of `[1,2]` is 5 bytes.
    let json = b"[1, 2]";
    let r = concordia_canonicalize(json.as_ptr(), json.len(), mem.as_mut_ptr(), 3, &mut n);
    assert_eq!(r, concordia_result::CONCORDIA_BUFFER_TOO_SMALL);
    assert_eq!(n, 5);
    assert!(mem[3..].iter().all(|&b| b == 0xaa), "written past out_cap: {mem:?}");
    // Exactly the needed length fits, and nothing beyond it is touched.
    let r = concordia_canonicalize(json.as_ptr(), json.len(), mem.as_mut_ptr(), 5, &mut n);
    assert_eq!(r, concordia_result::CONCORDIA_OK);
    assert_eq!((&mem[..n], &mem[5..]), (&b"[1,2]"[..], &[0xaa; 3][..]));
}

#[test]
fn a_failure_other_than_too_small_stores_length_zero() {
    let mut n = 7usize;
    assert!(store_len(Err(Error::Signature), &mut n).is_err());
    assert_eq!(n, 0);
    assert!(store_len(Ok(12), &mut n).is_ok());
    assert_eq!(n, 12);
}

#[test]
fn out_parameters_and_struct_inputs() {
    assert_eq!(code(out_ref::<usize>(std::ptr::null_mut()).unwrap_err()), concordia_result::CONCORDIA_NULL_ARGUMENT);
    assert!(opt_out::<usize>(std::ptr::null_mut()).is_none());
    let mut v = 0u64;
    *out_ref(&mut v).unwrap() = 5;
    *opt_out(&mut v).unwrap() += 1;
    assert_eq!(v, 6);
    let t = concordia_timing { session_ttl: 1, offer_ttl: 2, max_rounds: 3 };
    assert_eq!(in_ref(&t).unwrap().max_rounds, 3);
    assert_eq!(opt_in(&t).map(|t| t.offer_ttl), Some(2));
    assert_eq!(
        code(in_ref::<concordia_timing>(std::ptr::null()).unwrap_err()),
        concordia_result::CONCORDIA_NULL_ARGUMENT
    );
    assert!(opt_in::<concordia_timing>(std::ptr::null()).is_none());
}

#[test]
fn handles_are_boxed_once_read_changed_and_freed_once() {
    use concordia_core::sign::KeyPair;
    let public = |seed: u8| *KeyPair::from_seed(&[seed; 32]).public_key().as_bytes();
    let mut h: *mut concordia_keypair = std::ptr::null_mut();
    handle_new(concordia_keypair(KeyPair::from_seed(&[7; 32])), &mut h);
    assert!(!h.is_null());
    assert_eq!(handle_ref(h.cast_const()).unwrap().0.public_key().as_bytes(), &public(7));
    handle_mut(h).unwrap().0 = KeyPair::from_seed(&[8; 32]);
    assert_eq!(handle_ref(h.cast_const()).unwrap().0.public_key().as_bytes(), &public(8));
    // Miri reports a leak if the free does not drop the box, a double free if it drops twice.
    handle_free(h);
    handle_free::<concordia_keypair>(std::ptr::null_mut());
    let null: *const concordia_keypair = std::ptr::null();
    assert_eq!(code(handle_ref(null).err().unwrap()), concordia_result::CONCORDIA_NULL_ARGUMENT);
    assert_eq!(
        code(handle_mut::<concordia_session>(std::ptr::null_mut()).err().unwrap()),
        concordia_result::CONCORDIA_NULL_ARGUMENT
    );
}
