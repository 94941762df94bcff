use super::*;
use std::string::String;

/// Every case Python 3.11 decided (tests-py/gen_datetime_cases.py) decides the same here.
#[test]
fn matches_python_fromisoformat() {
    let Some(data) = crate::test_fixtures::read_string("tests/data/unit/fromisoformat_cases.jsonl") else { return };
    let mut checked = 0;
    for line in data.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = case[0].as_str().unwrap();
        let outcome = case[1].as_str().unwrap();
        let got = parse_any(text);
        match outcome {
            "error" => assert!(got.is_err(), "{text:?}: Python rejects, got {got:?}"),
            "aware" | "naive" => {
                let micros = case[2].as_i64().unwrap();
                let (t, aware) = got.unwrap_or_else(|e| panic!("{text:?}: Python accepts, got {e:?}"));
                assert_eq!(aware, outcome == "aware", "{text:?}");
                assert_eq!(t.secs, micros.div_euclid(1_000_000), "{text:?}");
                assert_eq!(i64::from(t.nanos), micros.rem_euclid(1_000_000) * 1000, "{text:?}");
                assert_eq!(is_date_time(text), aware, "{text:?}");
                assert_eq!(parse_datetime(text).is_ok(), aware, "{text:?}");
                assert_eq!(parse_datetime_assume_utc(text), Ok(t), "{text:?}");
            }
            other => panic!("bad outcome {other}"),
        }
        checked += 1;
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn naive_and_errors_are_temporal() {
    assert_eq!(parse_datetime("2026-05-10T14:25:00"), Err(Error::Temporal("timestamp has no UTC offset")));
    assert_eq!(parse_datetime("yesterday").map_err(|e| e.class()), Err(crate::Class::Temporal));
    assert_eq!(parse_datetime_assume_utc("2026-05-10T14:25:00"), parse_datetime("2026-05-10T14:25:00Z"));
    assert!(!is_date_time("2026-05-10"));
}

#[test]
fn ordering_is_chronological() {
    let a = parse_datetime("2026-05-10T14:25:00.5Z").unwrap();
    let b = parse_datetime("2026-05-10T14:25:01+00:00").unwrap();
    let c = parse_datetime("2026-05-10T15:25:00.6+01:00").unwrap();
    assert!(a < b && c > a && c < b);
    assert_eq!(b.seconds_since(&a), 0);
    assert_eq!(a.seconds_since(&b), 0);
    assert_eq!(b.seconds_since(&Timestamp::from_unix(0)), 1_778_423_101);
}

#[test]
fn rfc3339_round_trip() {
    let mut buf = [0u8; RFC3339_LEN];
    for text in [
        "1970-01-01T00:00:00Z",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59Z",
        "2024-02-29T12:34:56Z",
        "1969-12-31T23:59:59Z",
    ] {
        let t = parse_datetime(text).unwrap();
        assert_eq!(t.format_rfc3339(&mut buf).unwrap(), text);
        assert_eq!(std::format!("{t}"), text);
    }
    assert_eq!(Timestamp::from_unix(-1).format_rfc3339(&mut buf).unwrap(), "1969-12-31T23:59:59Z");
    assert!(Timestamp::from_unix(MAX_SECS + 1).format_rfc3339(&mut buf).is_err());
    assert!(Timestamp::from_unix(MIN_SECS - 1).format_rfc3339(&mut buf).is_err());
    assert_eq!(Timestamp::from_unix(0).format_rfc3339(&mut [0u8; 19]), Err(Error::BufferTooSmall { needed: 20 }));
    // Day-by-day agreement of the two calendar conversions over 30 000 years' span edges.
    for days in (-800_000..3_000_000).step_by(997) {
        let (y, m, d) = civil_from_days(days);
        assert_eq!(days_from_civil(y, m, d), days);
    }
}

#[test]
fn add_seconds_and_overflow() {
    let t = Timestamp::from_unix(100);
    assert_eq!(t.add_seconds(-100).unwrap().unix_seconds(), 0);
    assert!(Timestamp::from_unix(i64::MAX).add_seconds(1).is_err());
    assert!(Timestamp::from_unix_nanos(0, 1_000_000_000).is_err());
}

#[test]
fn long_z_text_is_bounded() {
    let mut s = String::from("2026-05-10T14:25:00.");
    for _ in 0..300 {
        s.push('1');
    }
    assert!(parse_datetime(&s).is_err()); // naive
    s.push('Z');
    assert_eq!(parse_datetime(&s), Err(Error::Temporal("timestamp too long")));
    s.pop();
    s.push_str("+00:00");
    assert!(parse_datetime(&s).is_ok());
}
