use super::*;
use kildall_testkit::Rng;

fn microlp_optimum(costs: &[f64], rows: &[Row], fixed: &[(usize, f64)]) -> Option<f64> {
    use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem};
    let mut lp = Problem::new(OptimizationDirection::Minimize);
    let vars: Vec<_> = costs
        .iter()
        .enumerate()
        .map(|(j, &c)| {
            let fix = fixed.iter().rev().find(|f| f.0 == j).map(|f| f.1);
            lp.add_var(c, fix.map_or((0.0, 1.0), |v| (v, v)))
        })
        .collect();
    for (terms, rhs) in rows {
        let mut expr = LinearExpr::empty();
        for &(x, c) in terms {
            expr.add(vars[x as usize], c);
        }
        lp.add_constraint(expr, ComparisonOp::Ge, *rhs);
    }
    match lp.solve() {
        Ok(outcome) => outcome.into_solution().ok().map(|s| s.objective()),
        Err(microlp::Error::Infeasible) => None,
        Err(e) => panic!("{e}"),
    }
}

fn random_rows(rng: &mut Rng, n: usize, m: usize) -> Vec<Row> {
    (0..m)
        .map(|_| {
            let mut terms: Vec<(u32, f64)> = Vec::new();
            for _ in 0..2 + rng.below(4) {
                let x = rng.below(n as u64) as u32;
                if terms.iter().all(|t| t.0 != x) {
                    terms.push((x, 1.0 + rng.below(2) as f64));
                }
            }
            let reach: f64 = terms.iter().map(|t| t.1).sum();
            let rhs = (1 + rng.below(2)) as f64;
            (terms, rhs.min(reach))
        })
        .collect()
}

/// The fill of eliminating `columns` (rows of each column) in `order`
/// (right-looking: a pivot updates the columns not yet eliminated).
fn fill_of(columns: &[Vec<u32>], rows: usize, order: &[(usize, Option<usize>)]) -> usize {
    let mut pattern: Vec<Vec<bool>> = columns
        .iter()
        .map(|c| (0..rows as u32).map(|r| c.contains(&r)).collect())
        .collect();
    let mut pivoted = vec![false; rows];
    let mut eliminated = vec![false; columns.len()];
    let mut fill = 0;
    for &(c, r) in order {
        eliminated[c] = true;
        let Some(r) = r else { continue };
        assert!(
            pattern[c][r] && !pivoted[r],
            "a pivot on an entry of a free row"
        );
        pivoted[r] = true;
        let others: Vec<usize> = (0..rows)
            .filter(|&s| !pivoted[s] && pattern[c][s])
            .collect();
        for (d, column) in pattern.iter_mut().enumerate() {
            if !eliminated[d] && column[r] {
                for &s in &others {
                    if !std::mem::replace(&mut column[s], true) {
                        fill += 1;
                    }
                }
            }
        }
    }
    fill
}

/// Markowitz order takes every column once and each row at most once,
/// leaves the columns of a singular pattern without a row, and
/// eliminates an arrowhead matrix (dense first row and column) without
/// fill, where the natural order fills it completely.
#[test]
fn markowitz_order_avoids_the_fill_of_an_arrowhead() {
    let n = 12u32;
    let arrow: Vec<Vec<u32>> = (0..n)
        .map(|c| if c == 0 { (0..n).collect() } else { vec![0, c] })
        .collect();
    let natural: Vec<(usize, Option<usize>)> = (0..n as usize).map(|c| (c, Some(c))).collect();
    assert_eq!(
        fill_of(&arrow, n as usize, &natural),
        ((n - 1) * (n - 2)) as usize
    );
    let order = markowitz_order(&arrow, n as usize);
    let mut columns: Vec<usize> = order.iter().map(|&(c, _)| c).collect();
    columns.sort_unstable();
    assert_eq!(columns, (0..n as usize).collect::<Vec<_>>());
    assert!(order.iter().all(|&(_, r)| r.is_some()));
    assert_eq!(fill_of(&arrow, n as usize, &order), 0);
    // Two columns on the same single row: one of them has none left.
    let singular = vec![vec![0], vec![0], vec![1]];
    let order = markowitz_order(&singular, 2);
    assert_eq!(order.iter().filter(|&&(_, r)| r.is_none()).count(), 1);
    assert_eq!(fill_of(&singular, 2, &order), 0);
    // Columns with no rows at all, and a row listed twice.
    assert_eq!(
        markowitz_order(&[vec![], vec![]], 0),
        [(0, None), (1, None)]
    );
    assert_eq!(markowitz_order(&[vec![1, 1]], 2), [(0, Some(1))]);
}

/// A solve of two vectors side by side gives each exactly what it
/// gives alone, through the factors and through the eta file.
#[test]
fn two_lanes_solve_as_one() {
    let budget = &Budget::unlimited();
    let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
    let mut with_etas = 0;
    for _ in 0..50 {
        let n = 10 + rng.below(60) as usize;
        let m = 5 + rng.below(80) as usize;
        let mut lp = Relaxation::new(&vec![1.0; n], random_rows(&mut rng, n, m));
        if lp.solve(budget) != Status::Optimal {
            continue;
        }
        for x in 0..n.min(3) {
            lp.fix(x, 0.0);
        }
        lp.solve(budget);
        let vector = |rng: &mut Rng| -> Vec<f64> {
            (0..m)
                .map(|_| match rng.below(3) {
                    0 => 0.0,
                    _ => rng.below(1000) as f64 / 7.0 - 70.0,
                })
                .collect()
        };
        let (mut a, mut b) = (vector(&mut rng), vector(&mut rng));
        let mut lanes: Vec<[f64; 2]> = a.iter().zip(&b).map(|(&x, &y)| [x, y]).collect();
        with_etas += usize::from(lp.etas.len() > 0);
        lp.ftran(&mut lanes);
        lp.ftran(&mut a);
        lp.ftran(&mut b);
        for (p, lane) in lanes.iter().enumerate() {
            assert_eq!(lane[0].to_bits() | (1 << 63), a[p].to_bits() | (1 << 63));
            assert_eq!(lane[1].to_bits() | (1 << 63), b[p].to_bits() | (1 << 63));
        }
    }
    assert!(
        with_etas > 10,
        "only {with_etas} bases with pivots since factorizing"
    );
}

/// Re-solving after fixings, added rows and dropped rows, the dual
/// simplex agrees with `microlp` solving each program from scratch on
/// feasibility, its point satisfies the rows and the fixings, and both
/// its bound and its point's cost lie within the reach of the cost
/// perturbation of that optimum, the bound never above it.
#[test]
fn dual_simplex_matches_microlp() {
    let budget = &Budget::unlimited();
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    for case in 0..2000 {
        // Half small, half as large as the components the search meets
        // most often.
        let scale = if case % 4 < 2 { 1 } else { 4 };
        let n = 3 + rng.below(30 * scale) as usize;
        let m = 1 + rng.below(40 * scale) as usize;
        let costs: Vec<f64> = (0..n)
            .map(|_| (1 + rng.below(if case % 2 == 0 { 1 } else { 9 })) as f64)
            .collect();
        let mut rows = random_rows(&mut rng, n, m);
        let mut lp = Relaxation::new(&costs, rows.clone());
        let mut fixed: Vec<(usize, f64)> = Vec::new();
        let mut ops: Vec<String> = Vec::new();
        for step in 0..6 {
            let before = lp.clone();
            let status = lp.solve(budget);
            let expected = microlp_optimum(&costs, &rows, &fixed);
            if let Some(opt) = expected {
                // A cutoff below the optimum may stop the solve, with a
                // bound past it; one above may not.
                let mut below = before.clone();
                match below.solve_with_cutoff(budget, opt - 1.0) {
                    Status::Cutoff => assert!(
                        below.bound() > opt - 1.0 && below.bound() <= opt + 1e-9,
                        "case {case} step {step}: cut off at {}",
                        below.bound()
                    ),
                    status => assert_eq!(status, Status::Optimal, "case {case} step {step}"),
                }
                let mut above = before;
                let status = above.solve_with_cutoff(budget, opt + 0.5);
                assert_eq!(status, Status::Optimal, "case {case} step {step}");
            }
            match expected {
                None => {
                    assert_eq!(status, Status::Infeasible, "case {case} step {step}");
                    break;
                }
                Some(opt) => {
                    assert_eq!(status, Status::Optimal, "case {case} step {step}");
                    let reach = 2.0 * PERTURBATION * costs.iter().sum::<f64>() + 1e-9;
                    let bound = lp.bound();
                    let errors = lp.dual_errors();
                    assert!(
                        errors.is_empty(),
                        "case {case} step {step}: {errors:?} {ops:?}"
                    );
                    assert!(
                        bound <= opt + 1e-9,
                        "case {case} step {step}: {bound} > {opt}"
                    );
                    assert!(
                        bound >= opt - reach,
                        "case {case} step {step}: {bound} < {opt}"
                    );
                    let value = lp.point();
                    let objective: f64 = value.iter().zip(&costs).map(|(v, c)| v * c).sum();
                    assert!((objective - opt).abs() <= reach, "case {case} step {step}");
                    for (terms, rhs) in &rows {
                        let a: f64 = terms.iter().map(|&(x, c)| c * value[x as usize]).sum();
                        assert!(a >= rhs - 1e-7, "case {case} step {step}");
                    }
                    for &(x, v) in &fixed {
                        let last = fixed.iter().rev().find(|f| f.0 == x).map(|f| f.1);
                        assert!(last != Some(v) || (value[x] - v).abs() < 1e-9);
                    }
                }
            }
            match rng.below(3) {
                0 => {
                    let count = 1 + rng.below(4) as usize;
                    let more = random_rows(&mut rng, n, count);
                    ops.push(format!("add {}", more.len()));
                    rows.extend(more.iter().cloned());
                    lp.add_rows(more);
                }
                1 => {
                    let keep = lp.drop_slack_rows();
                    ops.push(format!("drop {}", keep.iter().filter(|&&k| !k).count()));
                    rows = rows
                        .into_iter()
                        .zip(&keep)
                        .filter(|(_, &k)| k)
                        .map(|(r, _)| r)
                        .collect();
                }
                _ => {
                    let x = rng.below(n as u64) as usize;
                    let v = rng.below(2) as f64;
                    ops.push(format!("fix {x} {v}"));
                    fixed.push((x, v));
                    lp.fix(x, v);
                }
            }
        }
    }
}
