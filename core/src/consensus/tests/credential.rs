use super::ts;
use crate::consensus::credential::{Authorization, EmailProof, FragmentSecret, ParticipantToken, SessionToken};
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

fn header(a: Authorization<'_>) -> String {
    let mut buf = [0u8; 128];
    let n = a.write_value(&mut buf).unwrap();
    String::from_utf8(buf[..n].to_vec()).unwrap()
}

#[test]
fn values_never_print() {
    let now = ts("2026-09-06T12:00:00Z");
    let secret = FragmentSecret::new("c2VjcmV0LXZhbHVl").unwrap();
    let proof = EmailProof::new("proof-VALUE-1").unwrap();
    let session = SessionToken::new("cs_TOKENVALUE", now, ts("2026-09-06T12:10:00Z"), None).unwrap();
    let participant = ParticipantToken::new("cp_TOKENVALUE").unwrap();
    let shown = [
        format!("{secret:?} {secret} {secret:#?}"),
        format!("{proof:?} {proof}"),
        format!("{session:?} {session}"),
        format!("{participant:?} {participant}"),
        format!("{:?}", Authorization::from(&secret)),
        format!("{:?}", Authorization::from(&participant)),
    ];
    for s in &shown {
        assert!(!s.contains("c2VjcmV0") && !s.contains("VALUE"), "{s}");
        assert!(s.contains("redacted"), "{s}");
    }
    assert_eq!(format!("{secret:?}"), "FragmentSecret(<redacted>)");
}

#[test]
fn each_bearer_builds_its_own_header() {
    let now = ts("2026-09-06T12:00:00Z");
    let secret = FragmentSecret::new("c2VjcmV0").unwrap();
    let session = SessionToken::new("cs_1", now, ts("2026-09-06T12:10:00Z"), None).unwrap();
    let participant = ParticipantToken::new("cp_1").unwrap();
    assert_eq!(header(Authorization::from(&secret)), "Consensus-Invite c2VjcmV0");
    assert_eq!(header(Authorization::session(&session, now).unwrap()), "Consensus-Session cs_1");
    assert_eq!(header(Authorization::from(&participant)), "Consensus-Participant cp_1");
    assert_eq!(Authorization::from(&participant).scheme(), "Consensus-Participant");
    assert!(matches!(
        Authorization::from(&secret).write_value(&mut [0u8; 5]),
        Err(Error::BufferTooSmall { needed: 25 })
    ));
}

#[test]
fn session_token_lifetime_is_capped() {
    let now = ts("2026-09-06T12:00:00Z");
    // The venue claims an hour; the token is used for 20 minutes at most.
    let t = SessionToken::new("cs_1", now, ts("2026-09-06T13:00:00Z"), None).unwrap();
    assert_eq!(t.usable_until(), ts("2026-09-06T12:20:00Z"));
    assert!(Authorization::session(&t, ts("2026-09-06T12:19:59Z")).is_ok());
    assert_eq!(
        Authorization::session(&t, ts("2026-09-06T12:20:00Z")).unwrap_err(),
        Error::Temporal("session token expired")
    );
    // Never beyond the invitation's expiry.
    let t = SessionToken::new("cs_1", now, ts("2026-09-06T12:15:00Z"), Some(ts("2026-09-06T12:05:00Z"))).unwrap();
    assert_eq!(t.usable_until(), ts("2026-09-06T12:05:00Z"));
}

#[test]
fn malformed_values_are_refused_without_echo() {
    let now = ts("2026-09-06T12:00:00Z");
    for bad in ["", "abc+", "abc/", "YQ==", "a b", "A"] {
        let e = FragmentSecret::new(bad).unwrap_err();
        assert_eq!(e, Error::Encoding("fragment secret"));
    }
    assert!(FragmentSecret::new(&"A".repeat(513)).is_err());
    assert!(EmailProof::new("").is_err() && EmailProof::new("a\nb").is_err());
    assert!(
        ParticipantToken::new("a b").is_err()
            && ParticipantToken::new("a,b").is_err()
            && ParticipantToken::new("").is_err()
    );
    assert!(SessionToken::new("tok\r\nX-Evil: 1", now, now, None).is_err());
    let e = ParticipantToken::new("secret value").unwrap_err();
    assert!(!format!("{e} {e:?}").contains("secret value"));
}

#[test]
fn claim_body() {
    let proof = EmailProof::new("p\"roof").unwrap();
    let mut out = [0u8; 256];
    let n = proof.write_claim_body("agent@agentmail.to", "", &mut out).unwrap();
    assert_eq!(&out[..n], br#"{"emailProof":"p\"roof","inbox":"agent@agentmail.to","runtimeEndpoint":""}"#);
    assert!(proof.write_claim_body("agent@agentmail.to", "https://rt.example/hook", &mut out).is_ok());
    assert!(proof.write_claim_body("agent@agentmail.to", "http://rt.example/hook", &mut out).is_err());
    assert!(proof.write_claim_body("", "", &mut out).is_err());
    let mut big = vec![0u8; 8192];
    assert!(matches!(proof.write_claim_body(&"a".repeat(5000), "", &mut big), Err(Error::Limit { .. })));
}

#[test]
fn equality_is_by_value() {
    assert_eq!(ParticipantToken::new("cp_1").unwrap(), ParticipantToken::new("cp_1").unwrap());
    assert_ne!(ParticipantToken::new("cp_1").unwrap(), ParticipantToken::new("cp_2").unwrap());
}
