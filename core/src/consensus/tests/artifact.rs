use crate::consensus::artifact::{parse_content_digest, verify_artifact, write_content_digest};
use crate::consensus::Outcome;
use crate::digest::sha256;
use crate::Error;
#[allow(unused_imports)]
use std::{
    borrow::ToOwned,
    boxed::Box,
    format,
    string::{String, ToString},
    vec,
    vec::Vec,
};

/// RFC 9530 Appendix B.1: `{"hello": "world"}` followed by LF (19 bytes).
const B1_BODY: &[u8] = b"{\"hello\": \"world\"}\n";
const B1_SHA256: &str = "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:";
/// RFC 9530 §2's multi-algorithm example, unfolded (RFC 8792 line wrapping removed).
const S2_BOTH: &str = "sha-256=:d435Qo+nKZ+gLcUHn7GQtQ72hiBVAgqoLsZnZPiTGPk=:,sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:";
const S2_SHA512: &str =
    "sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:";
/// RFC 9530 Appendix B.2: a HEAD response, Content-Digest over empty content.
const B2_EMPTY: &str = "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:";

fn hex(b: &[u8]) -> String {
    sha256(b).to_hex().as_str().to_string()
}

#[test]
fn rfc9530_examples() {
    // B.1 verifies against its 19 bytes.
    assert_eq!(verify_artifact(B1_BODY, B1_SHA256, &hex(B1_BODY), Outcome::Reached), Ok(sha256(B1_BODY)));
    // B.2: the digest of empty content.
    assert_eq!(verify_artifact(b"", B2_EMPTY, &hex(b""), Outcome::Reached), Ok(sha256(b"")));
    // §2: the sha-512 value is that of the B.1 bytes, but the sha-256 value is not (a
    // known inconsistency in the published example); the bytes decide.
    use sha2::Digest as _;
    let s512 = sha2::Sha512::digest(B1_BODY);
    let mut b64 = [0u8; 88];
    crate::encoding::encode_base64(&s512, &mut b64).unwrap();
    assert_eq!(&S2_SHA512.as_bytes()[9..97], &b64[..]);
    let claimed = parse_content_digest(S2_BOTH).unwrap().unwrap();
    assert_ne!(claimed, sha256(B1_BODY));
    assert_eq!(claimed.to_hex().as_str(), "778df9428fa7299fa02dc5079fb190b50ef6862055020aa82ec66764f89318f9");
    assert_eq!(
        verify_artifact(B1_BODY, S2_BOTH, &hex(B1_BODY), Outcome::Reached),
        Err(Error::Digest("content-digest"))
    );
    // sha-512 alone is ignored: there is nothing this verifier uses.
    assert_eq!(parse_content_digest(S2_SHA512), Ok(None));
    assert_eq!(
        verify_artifact(B1_BODY, S2_SHA512, &hex(B1_BODY), Outcome::Reached),
        Err(Error::Schema("content-digest has no sha-256"))
    );
    // Without the LF the bytes have another digest (the common copy-paste slip).
    let no_lf = &B1_BODY[..18];
    let field = "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:";
    assert!(verify_artifact(no_lf, field, &hex(no_lf), Outcome::Reached).is_ok());
    assert!(verify_artifact(B1_BODY, field, &hex(B1_BODY), Outcome::Reached).is_err());
}

#[test]
fn both_headers_must_match_and_outcome_must_be_reached() {
    let body = b"# CONSENSUS.md\n\nAgreed.\n";
    let mut field = [0u8; 64];
    let n = write_content_digest(&sha256(body), &mut field).unwrap();
    let field = core::str::from_utf8(&field[..n]).unwrap();
    assert!(field.starts_with("sha-256=:") && field.ends_with(':') && n == 54);
    let h = hex(body);
    assert!(verify_artifact(body, field, &h, Outcome::Reached).is_ok());
    for o in [Outcome::Pending, Outcome::Disagreed, Outcome::NoConsensus, Outcome::Expired] {
        assert_eq!(verify_artifact(body, field, &h, o).unwrap_err().class(), crate::Class::Transition);
    }
    assert_eq!(
        verify_artifact(b"# tampered", field, &hex(b"# tampered"), Outcome::Reached),
        Err(Error::Digest("content-digest"))
    );
    assert_eq!(verify_artifact(body, field, &hex(b"x"), Outcome::Reached), Err(Error::Digest("x-consensus-sha256")));
    assert_eq!(
        verify_artifact(body, field, &h.to_ascii_uppercase(), Outcome::Reached),
        Err(Error::Encoding("x-consensus-sha256"))
    );
    assert_eq!(
        verify_artifact(body, field, &format!("sha256:{h}"), Outcome::Reached),
        Err(Error::Encoding("x-consensus-sha256"))
    );
}

#[test]
fn structured_field_dictionary() {
    let d = sha256(B1_BODY);
    let ok = [
        B1_SHA256.to_string(),
        format!("  {B1_SHA256}  "),
        format!("{B1_SHA256}, {S2_SHA512}"),
        format!("{S2_SHA512},\t{B1_SHA256}"),
        format!("unixsum=30637, {B1_SHA256};note=\"x\";n=1.5, md5=:AAAA:, flag, other=(a \"b\" 1);q=?1, t=tok/en:x, d=@1659578233, z=-0.123"),
        "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg:".to_string(),
    ];
    for f in &ok {
        assert_eq!(parse_content_digest(f), Ok(Some(d)), "{f}");
    }
    assert_eq!(parse_content_digest(""), Ok(None));
    assert_eq!(parse_content_digest("   "), Ok(None));
    let bad = [
        format!("{B1_SHA256},"),
        format!(",{B1_SHA256}"),
        format!("{B1_SHA256},,{S2_SHA512}"),
        format!("{B1_SHA256} {S2_SHA512}"),
        format!("{B1_SHA256}, {B1_SHA256}"),
        B1_SHA256.replace("sha-256", "SHA-256"),
        B1_SHA256.replace(':', "\""),
        "sha-256".to_string(),
        "sha-256=(:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:)".to_string(),
        "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8Fab==:".to_string(),
        "sha-256=:RK-0qy18MlBSVnWgjwz6lZEWjP_lF5HF9bvEF8FabDg=:".to_string(),
        "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=".to_string(),
        format!("\t{B1_SHA256}"),
        format!("{B1_SHA256};"),
        format!("{B1_SHA256}, x=\"unterminated"),
        format!("{B1_SHA256}, x=1234567890123456"),
        format!("{B1_SHA256}, x=1.2345"),
        format!("{B1_SHA256}, x=?2"),
        format!("{B1_SHA256}, x=@1.5"),
        format!("{B1_SHA256}, x=%\"display\""),
        format!("{B1_SHA256}, x=(a  b"),
        format!("{B1_SHA256}, x=(a,b)"),
        format!("{B1_SHA256}, 1x=1"),
        format!("{B1_SHA256}, x=\"é\""),
    ];
    for f in &bad {
        assert_eq!(parse_content_digest(f), Err(Error::Encoding("content-digest field")), "{f}");
    }
}

proptest::proptest! {
    #[test]
    fn parser_never_panics(s in "[ -~\t]{0,80}") {
        let _ = parse_content_digest(&s);
    }

    #[test]
    fn written_fields_parse_back(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
        let d = sha256(&bytes);
        let mut out = [0u8; 54];
        write_content_digest(&d, &mut out).unwrap();
        let field = core::str::from_utf8(&out).unwrap();
        proptest::prop_assert_eq!(parse_content_digest(field), Ok(Some(d)));
    }
}
