//! ES256 tests: deterministic signatures against `cryptography`, the reference SDK's
//! signatures, and Wycheproof-style edge cases (DER framing, scalar ranges, low S, points).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use std::string::String;
use std::vec::Vec;
use std::{format, vec};

fn unhex(s: &str) -> Vec<u8> {
    let mut out = vec![0u8; s.len() / 2];
    assert_eq!(encoding::decode_hex(s.as_bytes(), &mut out).unwrap(), s.len() / 2);
    out
}

fn scalar(s: &str) -> [u8; 32] {
    let v = unhex(&format!("{s:0>64}"));
    v.try_into().unwrap()
}

fn der(sig: &Signature) -> Vec<u8> {
    let mut buf = [0u8; Signature::MAX_DER_BYTES];
    let n = sig.to_der(&mut buf);
    buf[..n].to_vec()
}

/// RFC 6979 §A.2.5 key (P-256), as `cryptography`'s `derive_private_key` takes it.
const RFC6979_D: &str = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721";

/// Signatures made with `cryptography` 50.0.2 (OpenSSL 3), the only tool used:
///   k = ec.derive_private_key(d, ec.SECP256R1())
///   sig = k.sign(msg, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))  # RFC 6979
///   r, s = decode_dss_signature(sig); s = n - s if s > n // 2 else s        # the SDK's low S
///   encode_dss_signature(r, s).hex()
/// `msg` is "", `{"offer":1}` or bytes(range(256)) * 4; `high` says whether OpenSSL's `s`
/// was high (so both branches of the normalization are covered).
const DETERMINISTIC: [(&str, u8, &str, bool); 14] = [
    (RFC6979_D, b's', "3045022100efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf371602200834e36ad29a83bf2bc9385e491d6099c8fdf9d1ed67aa7ea5f51f93782857a9", true),
    (RFC6979_D, b't', "3045022100f1abb023518351cd71d881567b1ea663ed3efcf6c5132b354f28d3b0b7d383670220019f4113742a2b14bd25926b49c649155f267e60d3814b4c0cc84250e46f0083", false),
    ("1", 0, "304402200e69cb117664cedd6734e80151eabd388de266533e163fbe8ea463065c0fd71a02203d7b1980f450d3081f87695a3a0ddd34ebc8c4e40f56122b1c1def1593e1ad15", true),
    ("1", 1, "3045022100afd3c1136e0809e734c0d840d4e7538a0d599ba9ca9ba5909e65baa0d55528c9022010f6276b3f625c1634d747110dba94b5d24a3abe4128ee3bf8b4595eee0d5f49", false),
    ("1", 2, "304402200ae8b0441fa11a16cbe51506cf6ca75ef998d393537a0d80c534d139f2ea47040220674c22cfa134c4a4f836f33ad33aa96b7af4347146d8cf2802ae6363c6018124", true),
    ("2", 0, "30440220455f5d50d851d716fd28a4b7d8dad4af0a99446069ec542f3b70a19b8e1df430022065f1001398a9aae8336ad599c9fabb6e5487c37681c6aa0c0058180437ed9097", false),
    ("2", 1, "3044022041602c91ab3d6a67864d204755dbf4eaef197c5f5b5801db955dc8612f1ef66c02207aed7cec187bd429cb0d5fec1572bd5434f09ee1bf12eaef973513e4807db28a", true),
    ("2", 2, "304402205f12ef0befe09428f82adfab732f07df18fb1ae8be44bfb02e4ced2707db5f6f02201ed26eea7d4009c8921df380ae2f20b41574aef204ff4705a0dbe15a3827306b", true),
    ("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550", 0, "30450221009a4460ec5a9484c194d61987c2d9bddb2ada0e708fdf51ae0fe5974d8580012d02203c0d24113bf56911ade502eea52ba3cf7903ed4c7749ca730781971725f1ca04", true),
    ("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550", 1, "30440220767ca836bce379d211a8c26d6f36c3a8b635d49061c3edfd6b3bb2dfeb99fc4302201de34a5c855b1204fea9da74c675b28e709fc439c96f357952eeeb51130e193f", true),
    ("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550", 2, "304402206502febbdd7e60e95675b0ae913bf60e76a948cdcf6c3552107c1ae6fb9fc71602206c609138c1acbfcfba911f41c191e6d1c4274f60af023cf8c99262dbff4c6744", false),
    ("0707070707070707070707070707070707070707070707070707070707070707", 0, "3044022017d595b3e0aa55e0c9e222a54f7d9adf4b1481af921ad880dff5316c9604baca02204e4b362eb15bfc52876bb5eb5c14d149172ac6a3823fb4acf119eb1b7b94afb2", false),
    ("0707070707070707070707070707070707070707070707070707070707070707", 1, "304402200877811400bbddb3a1b559d3c8ab4632da4af23585c459a7c519f982725d013202206195d065def2827e397c34da15193df59079010bd632deb7689f62cc6b666c71", false),
    ("0707070707070707070707070707070707070707070707070707070707070707", 2, "3045022100c4e719176cd3afe509ce57b363707c0c439557006361d70be4c3331bd581332102205d7adeb7bd25464f558bc623466bc3bfd813389a7e8fcdf3fe2e56a5d78ae4fd", false),
];

fn message(which: u8) -> Vec<u8> {
    match which {
        0 => Vec::new(),
        1 => b"{\"offer\":1}".to_vec(),
        2 => (0..1024u32).map(|i| (i % 256) as u8).collect(),
        b's' => b"sample".to_vec(),
        _ => b"test".to_vec(),
    }
}

#[test]
fn constants_are_the_group_order() {
    use p256::elliptic_curve::Curve;
    let n: [u8; 32] = p256::NistP256::ORDER.to_be_bytes().into();
    assert_eq!(n, ORDER);
    // HALF_ORDER = ORDER >> 1 (n is odd).
    let mut half = [0u8; 32];
    let mut carry = 0u8;
    for (h, &b) in half.iter_mut().zip(ORDER.iter()) {
        *h = (b >> 1) | (carry << 7);
        carry = b & 1;
    }
    assert_eq!(half, HALF_ORDER);
}

#[test]
fn signing_is_rfc6979_then_low_s_as_cryptography() {
    for (d, which, expect, _) in DETERMINISTIC {
        let kp = KeyPair::from_scalar(&scalar(d)).unwrap();
        let msg = message(which);
        let sig = kp.sign(&msg);
        assert_eq!(der(&sig), unhex(expect), "d={d} msg={which}");
        assert_eq!(verify(&kp.public_key(), &msg, &sig), Ok(()));
        assert_eq!(Signature::from_der(&unhex(expect)), Ok(sig));
        assert_eq!(Signature::from_b64url(&sig.to_b64url()), Ok(sig));
        assert!(sig.s() <= &HALF_ORDER);
    }
    assert!(DETERMINISTIC.iter().any(|c| c.3) && DETERMINISTIC.iter().any(|c| !c.3));
}

// The reference SDK (concordia-protocol 0.10.0, cryptography 50.0.2):
//   k = ec.derive_private_key(int.from_bytes(bytes(range(1, 33)), "big"), ec.SECP256R1())
//   kp = ES256KeyPair(private_key=k, public_key=k.public_key())
//   kp.public_key_b64(); sign_message({"concordia": "interop", "n": 1, "text": "h\u00e9llo"}, kp, alg="ES256")
// (OpenSSL's nonce is random: this is one of its signatures, low S as the SDK makes them.)
const SDK_PK: &str = "BFFcPW6545a5BNP-yn9U_c0MwemXvzddylFa0KbDtANfRTa-OlDzGPv5pUdZAqIhUCvvDVfgjFOyzApW8X2fk1Q=";
const SDK_SIG: &str =
    "MEUCIQDCbJPtS5AVE6yoVCADcYKeJ9viS43YVgV1jRCCSqdpqwIgOKr-uD_bCr7uIcvbTKhDAgytybG9tJzgMk_3-vExJWM=";
const SDK_MSG: &[u8] = "{\"concordia\":\"interop\",\"n\":1,\"text\":\"h\u{e9}llo\"}".as_bytes();
const RFC6979_PK: &str = "BGD-1LolWp0xyWHrdMY1bWjASbiSO2H6bOZpYi5g8p-2eQP-EAi4vJmkGunpVii8ZPLxsgwtfp9Rd6PClNRGIpk=";

#[test]
fn reference_sdk_interop() {
    let d: [u8; 32] = core::array::from_fn(|i| i as u8 + 1);
    let kp = KeyPair::from_scalar(&d).unwrap();
    assert_eq!(kp.public_key().to_b64url().as_str(), SDK_PK);
    assert_eq!(*kp.scalar(), d);
    let pk = PublicKey::from_b64(SDK_PK).unwrap();
    assert_eq!(pk, kp.public_key());
    let sig = Signature::from_b64url(SDK_SIG).unwrap();
    assert_eq!(sig.to_b64url().as_str(), SDK_SIG);
    assert_eq!(verify(&pk, SDK_MSG, &sig), Ok(()));
    assert_eq!(verify(&pk, b"{\"concordia\":\"interop\",\"n\":2}", &sig), Err(Error::Signature));
    let rfc = KeyPair::from_scalar(&scalar(RFC6979_D)).unwrap();
    assert_eq!(rfc.public_key().to_b64url().as_str(), RFC6979_PK);
    // RFC 6979 §A.2.5 lists the public key: Ux = 60FED4BA..., Uy = 7903FE10....
    let u = rfc.public_key().to_uncompressed();
    assert_eq!(u[0], 4);
    assert_eq!(&u[1..5], &[0x60, 0xfe, 0xd4, 0xba]);
    assert_eq!(&u[33..37], &[0x79, 0x03, 0xfe, 0x10]);
}

#[test]
fn private_scalars_in_range_only() {
    assert_eq!(KeyPair::from_scalar(&[0; 32]).err(), Some(Error::InvalidArgument(ES256_PRIVATE_KEY)));
    assert_eq!(KeyPair::from_scalar(&ORDER).err(), Some(Error::InvalidArgument(ES256_PRIVATE_KEY)));
    assert_eq!(KeyPair::from_scalar(&[0xff; 32]).err(), Some(Error::InvalidArgument(ES256_PRIVATE_KEY)));
    let mut n_minus_1 = ORDER;
    n_minus_1[31] -= 1;
    assert!(KeyPair::from_scalar(&n_minus_1).is_ok());
    let dbg = format!("{:?}", KeyPair::from_scalar(&[0x42; 32]).unwrap());
    assert!(dbg.contains("public_key") && !dbg.contains("4242") && !dbg.contains("66, 66"), "{dbg}");
}

/// Builds DER from parts, for crafting: `30 L (02 Lr r) (02 Ls s)`.
fn der_of(r: &[u8], s: &[u8]) -> Vec<u8> {
    let mut body = vec![0x02, r.len() as u8];
    body.extend_from_slice(r);
    body.extend_from_slice(&[0x02, s.len() as u8]);
    body.extend_from_slice(s);
    let mut out = vec![0x30, body.len() as u8];
    out.extend(body);
    out
}

/// Big-endian `a - b` (a >= b).
fn sub(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let mut v = i16::from(a[i]) - i16::from(b[i]) - borrow;
        borrow = i16::from(v < 0);
        if v < 0 {
            v += 256;
        }
        out[i] = v as u8;
    }
    out
}

/// Big-endian `a + b` as 33 bytes.
fn add33(a: &[u8; 32], b: &[u8; 32]) -> Vec<u8> {
    let mut out = vec![0u8; 33];
    let mut carry = 0u16;
    for i in (0..32).rev() {
        let v = u16::from(a[i]) + u16::from(b[i]) + carry;
        out[i + 1] = v as u8;
        carry = v >> 8;
    }
    out[0] = carry as u8;
    out
}

/// The minimal DER content of a 32-byte big-endian integer.
fn int_content(x: &[u8; 32]) -> Vec<u8> {
    let skip = x.iter().take_while(|&&b| b == 0).count().min(31);
    let mut v = x[skip..].to_vec();
    if v[0] & 0x80 != 0 {
        v.insert(0, 0);
    }
    v
}

/// Wycheproof-style cases (the classes of `ecdsa_secp256r1_sha256_test.json`, written here
/// by hand over our own valid signature): each is DER bytes and the verdict. `Encoding`
/// means refused as not the strict DER form, `Signature` refused by the scalar checks or
/// the equation. The SDK refuses every one of them too (its `decode_dss_signature` is
/// strict DER, then `0 < r < n`, `0 < s <= n // 2`, then OpenSSL); the Python tests check
/// each class against `cryptography` (`bindings-python/tests/test_es256.py`).
#[test]
fn wycheproof_style_signature_cases() {
    let kp = KeyPair::from_scalar(&scalar(RFC6979_D)).unwrap();
    let pk = kp.public_key();
    // Messages whose signatures have r with the top bit set (33-byte DER integer) and
    // without, so both integer shapes get mutated: the first two of each shape.
    let candidates: Vec<Vec<u8>> = (0..40).map(|i| format!("{{\"offer\":{i}}}").into_bytes()).collect();
    let shape = |m: &Vec<u8>| der(&kp.sign(m))[3] == 33;
    let mut msgs: Vec<&Vec<u8>> = candidates.iter().filter(|m| shape(m)).take(2).collect();
    msgs.extend(candidates.iter().filter(|m| !shape(m)).take(2));
    assert_eq!(msgs.len(), 4);
    let enc = Err(Error::Encoding(SIGNATURE_ENCODING));
    let sig_err = Err(Error::Signature);
    let mut cases = 0;
    for msg in msgs {
        let sig = kp.sign(msg);
        let good = der(&sig);
        let (r, s) = (*sig.r(), *sig.s());
        let (rc, sc) = (int_content(&r), int_content(&s));
        let check = |bytes: &[u8], want: Result<()>, what: &str| {
            let got = Signature::from_der(bytes).and_then(|sig| verify(&pk, msg, &sig));
            assert_eq!(got, want, "{what}: {bytes:02x?}");
        };
        check(&good, Ok(()), "valid");
        check(&der_of(&rc, &sc), Ok(()), "valid, rebuilt");
        // Tampered message.
        assert_eq!(verify(&pk, b"other", &sig), sig_err);
        // High S: (r, n - s) is the other valid ECDSA signature; refused (malleability).
        check(&der_of(&rc, &int_content(&sub(&ORDER, &s))), sig_err, "high s");
        // r or s zero, n, n + x, n - 1 (where it does not verify), all ones.
        let zero = [0u8];
        let n = int_content(&ORDER);
        check(&der_of(&zero, &sc), sig_err, "r = 0");
        check(&der_of(&rc, &zero), sig_err, "s = 0");
        check(&der_of(&zero, &zero), sig_err, "r = s = 0");
        check(&der_of(&n, &sc), sig_err, "r = n");
        check(&der_of(&rc, &n), sig_err, "s = n");
        check(&der_of(&add33(&r, &ORDER), &sc), enc, "r + n (33 bytes of magnitude)");
        check(&der_of(&rc, &add33(&s, &ORDER)), enc, "s + n");
        check(
            &der_of(&[0; 1].iter().chain(add33(&r, &ORDER).iter()).copied().collect::<Vec<u8>>(), &sc),
            enc,
            "r + n with 00",
        );
        let mut n1 = ORDER;
        n1[31] -= 1;
        check(&der_of(&rc, &int_content(&n1)), sig_err, "s = n - 1 (high)");
        check(&der_of(&int_content(&n1), &sc), sig_err, "r = n - 1");
        check(
            &der_of(
                &[
                    0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                    0xff,
                ],
                &sc,
            ),
            sig_err,
            "r = 2^256 - 1",
        );
        check(&der_of(&[1], &[1]), sig_err, "r = s = 1");
        check(&der_of(&rc, &int_content(&HALF_ORDER)), sig_err, "s = n // 2 (low, wrong)");
        // Non-minimal integers: an extra leading 00 (and 00 00), or 00 before a byte < 0x80.
        let mut r00 = vec![0];
        r00.extend(&rc);
        check(&der_of(&r00, &sc), enc, "r with an extra leading 00");
        let mut s00 = vec![0, 0];
        s00.extend(&sc);
        check(&der_of(&rc, &s00), enc, "s with two leading 00");
        // Negative integers: the 00 before a top-bit byte dropped, or forced top bit.
        if rc[0] == 0 {
            check(&der_of(&rc[1..], &sc), enc, "r negative (leading 00 dropped)");
        } else {
            let mut neg = rc.clone();
            neg[0] |= 0x80;
            check(&der_of(&neg, &sc), enc, "r with the top bit set");
        }
        let mut negs = vec![0xff];
        negs.extend(&sc);
        check(&der_of(&rc, &negs), enc, "s negative (ff prefix)");
        // Empty integers.
        check(&der_of(&[], &sc), enc, "r empty");
        check(&der_of(&rc, &[]), enc, "s empty");
        // Length forms: long form for a short length (BER), indefinite length, lengths off by
        // one either way, the sequence length wrong.
        let mut long = vec![0x30, 0x81, good[1]];
        long.extend_from_slice(&good[2..]);
        check(&long, enc, "sequence length in long form");
        let mut long_r = vec![0x30, good[1] + 1, 0x02, 0x81];
        long_r.extend_from_slice(&good[3..]);
        check(&long_r, enc, "r length in long form");
        let mut indefinite = vec![0x30, 0x80];
        indefinite.extend_from_slice(&good[2..]);
        indefinite.extend_from_slice(&[0, 0]);
        check(&indefinite, enc, "indefinite length");
        for delta in [1u8, 0xff] {
            let mut b = good.clone();
            b[1] = b[1].wrapping_add(delta);
            check(&b, enc, "sequence length off by one");
            let mut b = good.clone();
            b[3] = b[3].wrapping_add(delta);
            check(&b, enc, "r length off by one");
            let s_at = 4 + usize::from(good[3]) + 1;
            let mut b = good.clone();
            b[s_at] = b[s_at].wrapping_add(delta);
            check(&b, enc, "s length off by one");
        }
        // Trailing and missing bytes: after the sequence, inside it, every truncation.
        for extra in [&[0u8][..], &[0, 0], &[0x02, 0x01, 0x01], &[0x05, 0x00]] {
            let mut b = good.clone();
            b.extend_from_slice(extra);
            check(&b, enc, "bytes after the sequence");
            let mut b = good.clone();
            b.extend_from_slice(extra);
            b[1] += extra.len() as u8;
            check(&b, enc, "bytes inside the sequence");
        }
        for cut in 0..good.len() {
            check(&good[..cut], enc, "truncated");
        }
        // Wrong tags: SET, constructed/other integer tags, BIT STRING, OCTET STRING, swapped.
        for (at, tag) in [(0usize, 0x31u8), (0, 0x10), (0, 0x70), (2, 0x03), (2, 0x04), (2, 0x22), (2, 0x82)] {
            let mut b = good.clone();
            b[at] = tag;
            check(&b, enc, "wrong tag");
        }
        // The IEEE P1363 form (r || s, 64 bytes) is not DER.
        let mut p1363 = r.to_vec();
        p1363.extend_from_slice(&s);
        check(&p1363, enc, "r || s");
        // r and s swapped (both in range; the equation fails, or s is high).
        check(&der_of(&sc, &rc), sig_err, "r and s swapped");
        // A nested sequence.
        let mut nested = vec![0x30, good.len() as u8];
        nested.extend_from_slice(&good);
        check(&nested, enc, "sequence in a sequence");
        cases += 1;
    }
    assert_eq!(cases, 4);
}

/// Scalars with leading zero bytes make shorter DER; `to_der` and `from_der` agree on all
/// integer lengths from 1 to 33 bytes.
#[test]
fn der_round_trip_all_lengths() {
    for len in 1..=32usize {
        for top in [0x01u8, 0x7f, 0x80, 0xff] {
            let mut x = [0u8; 32];
            x[32 - len] = top;
            if len > 1 {
                x[31] = 0x5a;
            }
            if x >= HALF_ORDER {
                continue;
            }
            let sig = Signature::from_scalars(&x, &x).unwrap();
            let d = der(&sig);
            let want = len + usize::from(top >= 0x80);
            assert_eq!(d[3] as usize, want);
            assert_eq!(d.len(), 2 + 2 * (2 + want));
            assert_eq!(Signature::from_der(&d), Ok(sig));
            assert_eq!(Signature::from_b64url(&sig.to_b64url()), Ok(sig));
        }
    }
}

#[test]
fn one_spelling_of_the_text() {
    let sig = Signature::from_b64url(SDK_SIG).unwrap();
    let enc = Err(Error::Encoding(SIGNATURE_ENCODING));
    let unpadded = SDK_SIG.trim_end_matches('=');
    assert_eq!(Signature::from_b64url(unpadded), enc);
    for other in [
        SDK_SIG.replace('-', "+").replace('_', "/"),
        format!(" {SDK_SIG}"),
        format!("{SDK_SIG}\n"),
        format!("{SDK_SIG}=="),
        format!("{unpadded}A="),
        String::new(),
    ] {
        assert_eq!(Signature::from_b64url(&other), enc, "{other:?}");
    }
    // A 64-byte Ed25519 signature text is not DER.
    assert_eq!(
        Signature::from_b64url(
            "ejW6-6WLv11xglQKmfaU7RBiEWNxxmwlgLDuJZMbMUYeymefO14HLa860rmBofeClYJzZAdGGH5Aa6t2Ym_BAw=="
        ),
        enc
    );
    // Longer than any DER signature.
    let mut long = String::from(SDK_SIG.trim_end_matches('='));
    long.push_str("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    assert_eq!(Signature::from_b64url(&long[..100]), enc);
    assert_eq!(format!("{sig:?}"), format!("es256::Signature({SDK_SIG})"));
}

/// Public keys: uncompressed and compressed points read as `from_encoded_point` reads them;
/// the identity, points off the curve, coordinates >= p and other prefixes are refused.
#[test]
fn public_key_edge_cases() {
    let pk = PublicKey::from_b64(SDK_PK).unwrap();
    let u = pk.to_uncompressed();
    let bad = Err(Error::Encoding(ES256_PUBLIC_KEY));
    assert_eq!(PublicKey::from_sec1(&u), Ok(pk));
    let mut c = [0u8; 33];
    c[0] = 2 | (u[64] & 1);
    c[1..].copy_from_slice(&u[1..33]);
    assert_eq!(PublicKey::from_sec1(&c), Ok(pk));
    c[0] ^= 1; // the other y
    let other = PublicKey::from_sec1(&c).unwrap();
    assert_ne!(other, pk);
    // The SDK's text, unpadded and in the standard alphabet, reads as the same key.
    assert_eq!(PublicKey::from_b64(SDK_PK.trim_end_matches('=')), Ok(pk));
    assert_eq!(PublicKey::from_b64(&SDK_PK.replace('-', "+").replace('_', "/")), Ok(pk));
    // Off the curve: y + 1.
    let mut off = u;
    off[64] ^= 1;
    assert_eq!(PublicKey::from_sec1(&off), bad);
    // The identity (SEC1 `00`), and zeros in every shape.
    assert_eq!(PublicKey::from_sec1(&[0]), bad);
    assert_eq!(PublicKey::from_sec1(&[0; 65]), bad);
    let mut zero_point = [0u8; 65];
    zero_point[0] = 4;
    assert_eq!(PublicKey::from_sec1(&zero_point), bad);
    // Hybrid form (06/07), no prefix, wrong lengths, compressed x off the curve.
    let mut hybrid = u;
    hybrid[0] = 6 | (u[64] & 1);
    assert_eq!(PublicKey::from_sec1(&hybrid), bad);
    assert_eq!(PublicKey::from_sec1(&u[1..]), bad);
    assert_eq!(PublicKey::from_sec1(&u[..64]), bad);
    let mut longer = u.to_vec();
    longer.push(0);
    assert_eq!(PublicKey::from_sec1(&longer), bad);
    assert_eq!(PublicKey::from_sec1(&[]), bad);
    // x = p (and x = p + small) in both forms: the coordinate is not reduced.
    let p = unhex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff");
    let mut xp = [0u8; 33];
    xp[0] = 2;
    xp[1..].copy_from_slice(&p);
    assert_eq!(PublicKey::from_sec1(&xp), bad);
    xp[0] = 3;
    assert_eq!(PublicKey::from_sec1(&xp), bad);
    // y >= p: y = p and y = 2^256 - 1 with the key's x.
    for y in [p.clone(), vec![0xff; 32]] {
        let mut q = u;
        q[33..].copy_from_slice(&y);
        assert_eq!(PublicKey::from_sec1(&q), bad);
    }
    // The generator itself (d = 1) is a valid key.
    let g = KeyPair::from_scalar(&scalar("1")).unwrap().public_key();
    assert_eq!(&g.to_uncompressed()[1..5], &[0x6b, 0x17, 0xd1, 0xf2]);
    // Base64 of a point of the wrong length or alphabet.
    assert_eq!(PublicKey::from_b64("AAAA"), bad);
    assert!(PublicKey::from_b64("BGD-1Lol+p0x").is_err());
    let long = format!("{}AAAA", SDK_PK.trim_end_matches('='));
    assert_eq!(PublicKey::from_b64(&long), bad);
    assert_eq!(format!("{pk:?}"), format!("es256::PublicKey({SDK_PK})"));
    // A valid signature under another key does not verify.
    let sig = Signature::from_b64url(SDK_SIG).unwrap();
    assert_eq!(verify(&other, SDK_MSG, &sig), Err(Error::Signature));
}

#[test]
fn verify_sink_agrees_in_any_chunking() {
    let kp = KeyPair::from_scalar(&[9; 32]).unwrap();
    let msg: Vec<u8> = (0..300u32).map(|i| (i * 31 % 251) as u8).collect();
    let sig = kp.sign(&msg);
    let pk = kp.public_key();
    let mut bad = msg.clone();
    bad[150] ^= 1;
    for step in [1usize, 7, 64, 300] {
        for (m, expect) in [(&msg, Ok(())), (&bad, Err(Error::Signature))] {
            let mut sink = VerifySink::new(&pk, &sig);
            for chunk in m.chunks(step) {
                sink.write(chunk).unwrap();
            }
            assert_eq!(sink.finish(), expect);
        }
    }
    let mut h = Sha256Sink::new();
    h.update(&msg);
    assert_eq!(kp.sign_digest(&h.finish().0), sig);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any key in range signs any message low-S, deterministically, and the signature
        /// reads back from its DER and text forms and verifies; a flipped bit does not.
        #[test]
        fn sign_verify_round_trip(d in any::<[u8; 32]>(), msg in proptest::collection::vec(any::<u8>(), 0..200), bit in 0usize..512) {
            let Ok(kp) = KeyPair::from_scalar(&d) else { return Ok(()) };
            let sig = kp.sign(&msg);
            prop_assert_eq!(kp.sign(&msg), sig);
            prop_assert!(sig.s() <= &HALF_ORDER);
            let text = sig.to_b64url();
            prop_assert_eq!(Signature::from_b64url(&text), Ok(sig));
            prop_assert_eq!(verify(&kp.public_key(), &msg, &sig), Ok(()));
            let mut d2 = der(&sig);
            let i = bit % (d2.len() * 8);
            d2[i / 8] ^= 1 << (i % 8);
            let got = Signature::from_der(&d2).and_then(|s| verify(&kp.public_key(), &msg, &s));
            prop_assert!(got.is_err());
        }

        /// No byte string panics the DER reader, and what it accepts it writes back
        /// byte for byte (one encoding per signature).
        #[test]
        fn der_reader_is_total_and_canonical(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
            if let Ok(sig) = Signature::from_der(&bytes) {
                prop_assert_eq!(der(&sig), bytes);
            }
        }
    }
}

/// Rule 1 over a parsed object: the SDK's signed message verifies, ours round-trips, and the
/// refusals carry the error model's details.
#[test]
fn signed_objects() {
    use crate::error::detail::{SIGNATURE_MISSING, SIGNATURE_NOT_STRING};
    use crate::json;
    use crate::message::{sign_object_es256, verify_signed_object_es256};
    let pk = PublicKey::from_b64(SDK_PK).unwrap();
    let text =
        format!("{{\"text\": \"h\\u00e9llo\", \"n\": 1, \"signature\": \"{SDK_SIG}\", \"concordia\": \"interop\"}}");
    let mut nodes = [json::Node::EMPTY; 16];
    let doc = json::parse(text.as_bytes(), &mut nodes).unwrap();
    assert_eq!(verify_signed_object_es256(doc.root(), &pk), Ok(()));
    // Signing replaces the signature; our (deterministic) one verifies too.
    let d: [u8; 32] = core::array::from_fn(|i| i as u8 + 1);
    let kp = KeyPair::from_scalar(&d).unwrap();
    let mut out = [0u8; 256];
    let err = sign_object_es256(doc.root(), &kp, &mut out[..10]).unwrap_err();
    let Error::BufferTooSmall { needed } = err else { panic!("{err:?}") };
    let n = sign_object_es256(doc.root(), &kp, &mut out[..needed]).unwrap();
    assert!(n <= needed && needed - n <= 8, "{n} {needed}");
    let signed = &out[..n];
    let mut nodes2 = [json::Node::EMPTY; 16];
    let doc2 = json::parse(signed, &mut nodes2).unwrap();
    assert_eq!(verify_signed_object_es256(doc2.root(), &pk), Ok(()));
    let sig_text = doc2.root().get("signature").unwrap().as_plain_str().unwrap();
    assert_eq!(sig_text, kp.sign(SDK_MSG).to_b64url().as_str());
    assert!(std::str::from_utf8(signed).unwrap().starts_with("{\"concordia\":\"interop\",\"n\":1,\"signature\":"));
    // Refusals.
    let cases: [(&str, Error); 6] = [
        ("{\"concordia\":\"interop\",\"n\":2,\"text\":\"h\\u00e9llo\",\"signature\":\"SIG\"}", Error::Signature),
        ("{\"concordia\":\"interop\",\"n\":1}", Error::Schema(SIGNATURE_MISSING)),
        ("{\"concordia\":\"interop\",\"n\":1,\"signature\":7}", Error::Schema(SIGNATURE_NOT_STRING)),
        ("{\"n\":1,\"signature\":\"ejW6-6WLv11xglQKmfaU7RBiEWNxxmwlgLDuJZMbMUYeymefO14HLa860rmBofeClYJzZAdGGH5Aa6t2Ym_BAw==\"}", Error::Encoding(SIGNATURE_ENCODING)),
        ("{\"n\":1,\"signature\":\"SIG \"}", Error::Encoding(SIGNATURE_ENCODING)),
        ("[1]", Error::Schema("signed value must be an object")),
    ];
    for (t, want) in cases {
        let t = t.replace("SIG", SDK_SIG);
        let mut nodes = [json::Node::EMPTY; 16];
        let doc = json::parse(t.as_bytes(), &mut nodes).unwrap();
        assert_eq!(verify_signed_object_es256(doc.root(), &pk), Err(want), "{t}");
    }
    let mut nodes = [json::Node::EMPTY; 4];
    let arr = json::parse(b"[1]", &mut nodes).unwrap();
    assert_eq!(sign_object_es256(arr.root(), &kp, &mut out), Err(Error::Schema("signed value must be an object")));
    // `{}` signs to `{"signature":"..."}`, within the length first reported.
    let mut nodes = [json::Node::EMPTY; 4];
    let empty = json::parse(b"{}", &mut nodes).unwrap();
    let Err(Error::BufferTooSmall { needed }) = sign_object_es256(empty.root(), &kp, &mut out[..1]) else { panic!() };
    let n = sign_object_es256(empty.root(), &kp, &mut out[..needed]).unwrap();
    assert!(out[..n].starts_with(b"{\"signature\":\"") && n <= needed);
}
