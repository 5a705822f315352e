//! The join and transfer of the component analysis on hand-made states.

use super::*;

fn state(succs: &[(u32, &Flat<Id>)], here: &Flat<Id>) -> State {
    let mut state = State {
        here: here.clone(),
        ..State::default()
    };
    for (slot, (b, v)) in state.succs.iter_mut().zip(succs) {
        *slot = Some((Block::from_u32(*b), (*v).clone()));
    }
    state
}

/// The states as sets of (key, value) facts, for comparing joins
/// whatever the order of their slots.
fn facts(s: &State) -> (Vec<(Block, String)>, bool, String) {
    let show = |v: &Flat<Id>| match v {
        Flat::Bottom => "bottom".to_string(),
        Flat::Top => "top".to_string(),
        Flat::Known(id) => format!("{id:?}"),
    };
    let mut succs: Vec<_> = s
        .succs
        .iter()
        .flatten()
        .filter(|(_, v)| !s.more && !matches!(v, Flat::Bottom))
        .map(|(b, v)| (*b, show(v)))
        .collect();
    succs.sort();
    (succs, s.more, show(&s.here))
}

/// The join of the domain is a join: idempotent, commutative and
/// associative, and reports a change exactly when the facts change.
#[test]
fn the_state_join_is_a_lattice_join() {
    let (a, b) = (Flat::Known(Id(0)), Flat::Known(Id(1)));
    let values = [Flat::Bottom, a, b, Flat::Top];
    let mut states = vec![State::default()];
    for x in &values {
        states.push(state(&[], x));
        for y in &values {
            states.push(state(&[(1, x), (2, y)], &Flat::Bottom));
            states.push(state(&[(2, x)], y));
            states.push(state(&[(3, x), (1, y)], &Flat::Bottom));
        }
    }
    let join = |a: &State, b: &State| {
        let mut j = a.clone();
        let changed = j.join(b);
        assert_eq!(changed, facts(&j) != facts(a));
        j
    };
    for x in &states {
        assert_eq!(facts(&join(x, x)), facts(x));
        for y in &states {
            let xy = join(x, y);
            assert_eq!(facts(&xy), facts(&join(y, x)));
            for z in states.iter().step_by(3) {
                assert_eq!(facts(&join(&xy, z)), facts(&join(x, &join(y, z))));
            }
        }
    }
}
