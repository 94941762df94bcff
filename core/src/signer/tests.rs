use super::*;
use crate::sign::KeyPair;

/// A signer whose answer the test chooses.
struct Fake<F: Fn(&[u8], &mut [u8; MAX_SIGNATURE_BYTES]) -> Result<usize>> {
    key: SignerKey,
    f: F,
    calls: core::cell::Cell<usize>,
}

impl<F: Fn(&[u8], &mut [u8; MAX_SIGNATURE_BYTES]) -> Result<usize>> Signer for Fake<F> {
    fn public_key(&self) -> SignerKey {
        self.key
    }
    fn sign(&self, preimage: &[u8], out: &mut [u8; MAX_SIGNATURE_BYTES]) -> Result<usize> {
        self.calls.set(self.calls.get() + 1);
        (self.f)(preimage, out)
    }
}

fn fake<F: Fn(&[u8], &mut [u8; MAX_SIGNATURE_BYTES]) -> Result<usize>>(key: SignerKey, f: F) -> Fake<F> {
    Fake { key, f, calls: core::cell::Cell::new(0) }
}

#[test]
fn in_memory_ed25519_matches_the_key_pair() {
    let kp = KeyPair::from_seed(&[1; 32]);
    let text = signature_text(&kp, b"abc").unwrap();
    assert_eq!(text.as_str(), kp.sign(b"abc").to_b64url().as_str());
    assert_eq!(Signer::alg(&kp), Alg::EdDsa);
}

#[test]
fn ed25519_answers_that_do_not_verify_are_refused() {
    let kp = KeyPair::from_seed(&[1; 32]);
    let other = KeyPair::from_seed(&[2; 32]);
    let pk = SignerKey::Ed25519(kp.public_key());
    let wrong = Err(Error::Signer(SIGNER_WRONG_SIGNATURE));
    // Another key's signature.
    let s = fake(pk, |m, out| Signer::sign(&other, m, out));
    assert_eq!(sign_checked(&s, b"abc").map(|_| ()), wrong);
    assert_eq!(s.calls.get(), 1);
    // A signature over other bytes.
    let s = fake(pk, |_, out| Signer::sign(&kp, b"abd", out));
    assert_eq!(sign_checked(&s, b"abc").map(|_| ()), wrong);
    // Wrong lengths, a length beyond the buffer, a flipped bit.
    for n in [0usize, 63, 65, 72, 73, usize::MAX] {
        let kp = &kp;
        let s = fake(pk, move |m, out| {
            Signer::sign(kp, m, out)?;
            Ok(n)
        });
        assert_eq!(sign_checked(&s, b"abc").map(|_| ()), wrong, "length {n}");
    }
    let s = fake(pk, |m, out| {
        let n = Signer::sign(&kp, m, out)?;
        out[10] ^= 1;
        Ok(n)
    });
    assert_eq!(sign_checked(&s, b"abc").map(|_| ()), wrong);
    // The signer's own error comes back unchanged.
    let s = fake(pk, |_, _| Err(Error::Signer(SIGNER_FAILED)));
    assert_eq!(sign_checked(&s, b"abc").map(|_| ()), Err(Error::Signer(SIGNER_FAILED)));
}

#[test]
fn public_key_bytes_are_checked() {
    assert!(SignerKey::from_bytes(Alg::EdDsa, &[0; 31]).is_err());
    let kp = KeyPair::from_seed(&[3; 32]);
    let k = SignerKey::from_bytes(Alg::EdDsa, kp.public_key().as_bytes()).unwrap();
    assert_eq!(k, SignerKey::Ed25519(kp.public_key()));
    assert_eq!(Error::Signer(SIGNER_PUBLIC_KEY).class(), crate::error::Class::Input);
}

#[cfg(feature = "es256")]
mod es256 {
    use super::*;
    use crate::es256::{KeyPair as EsKeyPair, Signature as EsSignature, HALF_ORDER, ORDER};

    fn es_key() -> EsKeyPair {
        EsKeyPair::from_scalar(&[9; 32]).unwrap()
    }

    fn raw(sig: &EsSignature) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(sig.r());
        out[32..].copy_from_slice(sig.s());
        out
    }

    fn high(s: &[u8; 32]) -> [u8; 32] {
        // n - s for a low s.
        let mut out = [0u8; 32];
        let mut borrow = 0i16;
        for i in (0..32).rev() {
            let mut d = i16::from(ORDER[i]) - i16::from(s[i]) - borrow;
            borrow = 0;
            if d < 0 {
                d += 256;
                borrow = 1;
            }
            out[i] = d as u8;
        }
        out
    }

    #[test]
    fn der_raw_and_high_s_all_give_the_one_low_s_signature() {
        let kp = es_key();
        let pk = SignerKey::Es256(kp.public_key());
        let want = kp.sign(b"msg");
        assert_eq!(signature_text(&kp, b"msg").unwrap().as_str(), want.to_b64url().as_str());
        let r = fake(pk, |m, out| {
            out[..64].copy_from_slice(&raw(&kp.sign(m)));
            Ok(64)
        });
        assert_eq!(sign_checked(&r, b"msg").unwrap(), CheckedSignature::Es256(want));
        let hi = high(want.s());
        assert!(hi > HALF_ORDER);
        let h = fake(pk, |_, out| {
            out[..32].copy_from_slice(want.r());
            out[32..64].copy_from_slice(&hi);
            Ok(64)
        });
        assert_eq!(sign_checked(&h, b"msg").unwrap(), CheckedSignature::Es256(want));
        assert_eq!(crate::es256::low_s(&hi), *want.s());
    }

    #[test]
    fn malformed_es256_answers_are_refused() {
        let kp = es_key();
        let pk = SignerKey::Es256(kp.public_key());
        let wrong = Err(Error::Signer(SIGNER_WRONG_SIGNATURE));
        // Zero r, s = n, bytes that are neither raw nor DER, DER with trailing bytes.
        type Case<'a> = &'a dyn Fn(&mut [u8; 72]) -> usize;
        let cases: [Case<'_>; 4] = [
            &|out| {
                out[..64].fill(0);
                64
            },
            &|out| {
                out[..32].copy_from_slice(kp.sign(b"msg").r());
                out[32..64].copy_from_slice(&ORDER);
                64
            },
            &|out| {
                out[..65].fill(0x30);
                65
            },
            &|out| {
                let n = kp.sign(b"msg").to_der(out);
                out[n] = 0;
                n + 1
            },
        ];
        for (i, case) in cases.iter().enumerate() {
            let s = fake(pk, |_, out| Ok(case(out)));
            assert_eq!(sign_checked(&s, b"msg").map(|_| ()), wrong, "case {i}");
        }
        // An Ed25519-length answer from a P-256 signer, and another P-256 key's signature.
        let other = EsKeyPair::from_scalar(&[8; 32]).unwrap();
        let s = fake(pk, |m, out| Signer::sign(&other, m, out));
        assert_eq!(sign_checked(&s, b"msg").map(|_| ()), wrong);
    }
}
