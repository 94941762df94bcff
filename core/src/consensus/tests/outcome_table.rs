//! The outcome table over orderings of decisions, for rosters of 2 to 8.
//!
//! Exhaustive for rosters of 2 to 5 (every assignment of agree / disagree / abstain /
//! silence to each participant, and every order of the decisions); for 6 to 8, every
//! sequence of decisions up to renaming participants, plus pseudo-random participants and
//! orders from a fixed-seed generator.
#[allow(unused_imports)]
use std::{
    borrow::ToOwned,
    boxed::Box,
    format,
    string::{String, ToString},
    vec,
    vec::Vec,
};

use super::{rev_digest, ts};
use crate::consensus::command::{Action, Command};
use crate::consensus::room::{ParticipantKind, Refusal, Room, Roster};
use crate::consensus::Outcome;

type Visit<'a> = &'a mut dyn FnMut(&[(usize, Action)]);

const CHOICES: [Option<Action>; 4] = [None, Some(Action::Agree), Some(Action::Disagree), Some(Action::Abstain)];

struct Fixture {
    commands: [Command<'static>; 3],
    keys: [String; 3],
    rosters: Vec<Roster>,
}

fn fixture() -> Fixture {
    let hex: &'static str = Box::leak(rev_digest().to_hex().as_str().to_string().into_boxed_str());
    let commands = [Action::Agree, Action::Disagree, Action::Abstain].map(|a| Command::new(a, "", 1, hex).unwrap());
    let keys = commands.map(|c| c.idempotency_key().as_str().to_string());
    let rosters = (0..=8)
        .map(|n| {
            let mut r = Roster::new();
            for i in 0..n {
                let kind = if i == 0 { ParticipantKind::Human } else { ParticipantKind::Agent };
                r.push(&format!("p{i}"), kind).unwrap();
            }
            r
        })
        .collect();
    Fixture { commands, keys, rosters }
}

fn slot(a: Action) -> usize {
    match a {
        Action::Agree => 0,
        Action::Disagree => 1,
        _ => 2,
    }
}

/// The rule, stated independently of the room: the first non-agree decision closes the
/// round; all agreeing reaches it; otherwise pending, or expired after the deadline.
fn expected(n: usize, order: &[(usize, Action)]) -> (Outcome, Outcome) {
    for &(_, a) in order {
        match a {
            Action::Disagree => return (Outcome::Disagreed, Outcome::Disagreed),
            Action::Abstain => return (Outcome::NoConsensus, Outcome::NoConsensus),
            _ => {}
        }
    }
    if order.len() == n {
        (Outcome::Reached, Outcome::Reached)
    } else {
        (Outcome::Pending, Outcome::Expired)
    }
}

fn run(f: &Fixture, n: usize, order: &[(usize, Action)]) {
    let deadline = ts("2026-09-10T00:00:00Z");
    let before = ts("2026-09-09T00:00:00Z");
    let mut room: Room<16> = Room::new(1, rev_digest(), deadline, f.rosters[n].clone()).unwrap();
    let ids: Vec<&str> = f.rosters[n].members().iter().map(|p| p.id()).collect();
    let mut closed_at = None;
    for (step, &(p, a)) in order.iter().enumerate() {
        let s = slot(a);
        let got = room.apply(ids[p], &f.commands[s], &f.keys[s], before);
        if closed_at.is_some() {
            assert_eq!(got, Err(Refusal::Closed), "n={n} order={order:?}");
        } else {
            assert_eq!(got.map(|x| x.status), Ok(201), "n={n} order={order:?}");
            if room.outcome(before).is_terminal() {
                closed_at = Some(step);
            }
        }
    }
    let (now, later) = expected(n, order);
    assert_eq!(room.outcome(before), now, "n={n} order={order:?}");
    assert_eq!(room.outcome(deadline), later, "n={n} order={order:?}");
    // Every accepted decision replays as 200, even after the round closed.
    for &(p, a) in order.iter().take(closed_at.map_or(order.len(), |c| c + 1)) {
        let s = slot(a);
        assert_eq!(room.apply(ids[p], &f.commands[s], &f.keys[s], before).map(|x| x.status), Ok(200));
    }
}

fn permutations(items: &mut Vec<(usize, Action)>, k: usize, visit: Visit<'_>) {
    if k == items.len() {
        visit(items);
        return;
    }
    for i in k..items.len() {
        items.swap(k, i);
        permutations(items, k + 1, visit);
        items.swap(k, i);
    }
}

fn assignments(n: usize) -> impl Iterator<Item = Vec<(usize, Action)>> {
    (0..4usize.pow(n as u32)).map(move |mut code| {
        let mut v = Vec::new();
        for p in 0..n {
            if let Some(a) = CHOICES[code % 4] {
                v.push((p, a));
            }
            code /= 4;
        }
        v
    })
}

#[test]
fn exhaustive_for_two_to_five() {
    let f = fixture();
    let mut runs = 0usize;
    for n in 2..=5 {
        for mut decided in assignments(n) {
            permutations(&mut decided, 0, &mut |order| {
                run(&f, n, order);
                runs += 1;
            });
        }
    }
    assert_eq!(
        runs,
        [2usize, 3, 4, 5]
            .iter()
            .map(|&n| (0..=n).map(|k| binom(n, k) * 3usize.pow(k as u32) * fact(k)).sum::<usize>())
            .sum::<usize>()
    );
}

/// Every sequence of decisions (by action, of any length up to the roster) given to
/// participants in a rotating order: the rule is symmetric in who decides, so this covers
/// every case up to renaming participants.
fn sequences(n: usize, visit: Visit<'_>) {
    let acts = [Action::Agree, Action::Disagree, Action::Abstain];
    for k in 0..=n {
        for code in 0..3usize.pow(k as u32) {
            let mut c = code;
            let order: Vec<(usize, Action)> = (0..k)
                .map(|i| {
                    let a = acts[c % 3];
                    c /= 3;
                    ((i + code) % n, a)
                })
                .collect();
            visit(&order);
        }
    }
}

#[test]
fn representative_for_six_to_eight() {
    let f = fixture();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for n in 6..=8 {
        sequences(n, &mut |order| run(&f, n, order));
        // Pseudo-random decisions from random participants in random orders.
        for _ in 0..1000 {
            let mut order: Vec<(usize, Action)> = (0..n)
                .map(|p| {
                    (
                        p,
                        [Action::Agree, Action::Agree, Action::Agree, Action::Disagree, Action::Abstain]
                            [rand() as usize % 5],
                    )
                })
                .collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rand() as usize % (i + 1));
            }
            let len = if rand() % 2 == 0 { n } else { rand() as usize % (n + 1) };
            run(&f, n, &order[..len]);
        }
    }
}

fn binom(n: usize, k: usize) -> usize {
    fact(n) / (fact(k) * fact(n - k))
}

fn fact(n: usize) -> usize {
    (1..=n).product()
}
