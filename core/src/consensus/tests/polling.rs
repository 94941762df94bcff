use super::ts;
use crate::consensus::polling::{parse_retry_after, Backoff, Next};
use crate::consensus::Outcome;
use crate::time::Timestamp;
#[allow(unused_imports)]
use std::{
    borrow::ToOwned,
    boxed::Box,
    format,
    string::{String, ToString},
    vec,
    vec::Vec,
};

#[test]
fn doubles_up_to_max() {
    let mut b = Backoff::new(2, 60, 100).unwrap();
    let (now, deadline) = (Timestamp::from_unix(0), Timestamp::from_unix(10_000));
    let delays: Vec<Next> = (0..8).map(|_| b.next(Outcome::Pending, now, deadline, None)).collect();
    let want = [2, 4, 8, 16, 32, 60, 60, 60].map(Next::Wait);
    assert_eq!(delays, want);
    assert_eq!(b.polls(), 8);
    assert!(Backoff::new(0, 10, 1).is_err() && Backoff::new(11, 10, 1).is_err());
}

#[test]
fn stops_at_terminal_outcome_deadline_or_budget() {
    let (now, deadline) = (Timestamp::from_unix(100), Timestamp::from_unix(200));
    let mut b = Backoff::new(1, 8, 3).unwrap();
    for o in [Outcome::Reached, Outcome::Disagreed, Outcome::NoConsensus, Outcome::Expired] {
        assert_eq!(b.next(o, now, deadline, None), Next::Stop(o));
    }
    assert_eq!(b.next(Outcome::Pending, deadline, deadline, None), Next::Stop(Outcome::Expired));
    assert_eq!(b.polls(), 0);
    for _ in 0..3 {
        assert!(matches!(b.next(Outcome::Pending, now, deadline, None), Next::Wait(_)));
    }
    assert_eq!(b.next(Outcome::Pending, now, deadline, None), Next::Stop(Outcome::Pending));
    // Total waiting is bounded by the deadline whatever happens.
    let mut b = Backoff::new(1, 3600, u32::MAX).unwrap();
    let mut t = now;
    let mut polls = 0;
    while let Next::Wait(s) = b.next(Outcome::Pending, t, deadline, None) {
        assert!(s >= 1);
        t = t.add_seconds(s as i64).unwrap();
        polls += 1;
        assert!(t <= deadline && polls < 20);
    }
}

#[test]
fn honours_retry_after() {
    let (now, deadline) = (Timestamp::from_unix(0), Timestamp::from_unix(1000));
    let mut b = Backoff::new(2, 60, 100).unwrap();
    assert_eq!(b.next(Outcome::Pending, now, deadline, Some(30)), Next::Wait(30));
    // Retry-After never shortens the backoff.
    assert_eq!(b.next(Outcome::Pending, now, deadline, Some(1)), Next::Wait(4));
    // Retry-After past the deadline: stop rather than disobey it.
    assert_eq!(b.next(Outcome::Pending, now, deadline, Some(5000)), Next::Stop(Outcome::Expired));
    // Backoff alone is clamped to the time left.
    let mut b = Backoff::new(60, 60, 100).unwrap();
    assert_eq!(b.next(Outcome::Pending, Timestamp::from_unix(990), deadline, None), Next::Wait(10));
}

#[test]
fn retry_after_forms() {
    let now = ts("1994-11-06T08:49:00Z");
    assert_eq!(parse_retry_after("120", now), Ok(120));
    assert_eq!(parse_retry_after(" 0 ", now), Ok(0));
    assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now), Ok(37));
    assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:48:37 GMT", now), Ok(0));
    for bad in [
        "",
        "-1",
        "1.5",
        "1e3",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 31 Feb 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 25:49:37 GMT",
        "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nox 1994 08:49:37 GMT",
        "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08-49-37 GMT",
        "99999999999999999999",
    ] {
        assert!(parse_retry_after(bad, now).is_err(), "{bad}");
    }
}
