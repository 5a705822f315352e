//! Compiles a small recursive `.jvr` program, prints its CASM listing and
//! runs it on the strict interpreter (and on the Cairo VM when the
//! `cairo-vm` feature is on).
//!
//! `cargo run -p kildall-casm --example compile_and_run [N]`

use kildall_casm::{build, compile, interp, Felt, Mode, MAX_STEPS};

const SRC: &str = "
function sum(integer) : integer {
  if eq arg[0] 0, out: tmp[0] {
    true: { tmp[0] = 0; };
    false: {
      tmp[1] = sub arg[0] 1;
      tmp[2] = call sum(tmp[1]);
      tmp[0] = add tmp[2] arg[0];
    };
  };
  ret tmp[0];
}
";

fn main() -> Result<(), kildall_casm::Error> {
    let n: i128 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    print!("{}", compile(SRC)?);
    let prog = build(SRC, "sum", &[Felt::from_i128(n)], Mode::Execution)?;
    let r = interp::run(&prog, MAX_STEPS)?;
    println!(
        "sum({n}) = {} in {} steps ({} words of bytecode)",
        r.value,
        r.steps,
        prog.data.len()
    );
    #[cfg(feature = "cairo-vm")]
    {
        let vm = kildall_casm::vm::run(&prog)?;
        println!("Cairo VM: {} in {} steps", vm.value, vm.steps);
    }
    Ok(())
}
