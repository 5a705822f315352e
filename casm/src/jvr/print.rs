//! The text of a module, as the parser reads it back.

use std::fmt;

use super::*;

fn write_stmts(f: &mut fmt::Formatter<'_>, stmts: &[Stmt], indent: usize) -> fmt::Result {
    for s in stmts {
        write_stmt(f, s, indent)?;
    }
    Ok(())
}

fn write_args(f: &mut fmt::Formatter<'_>, args: &[Value]) -> fmt::Result {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{a}")?;
    }
    Ok(())
}

fn write_stmt(f: &mut fmt::Formatter<'_>, s: &Stmt, indent: usize) -> fmt::Result {
    let pad = "  ".repeat(indent);
    match &s.kind {
        StmtKind::Assign { dst, src } => writeln!(f, "{pad}{dst} = {src};"),
        StmtKind::Binop { dst, op, a, b } => writeln!(f, "{pad}{dst} = {} {a} {b};", op.name()),
        StmtKind::Call { dst, func, args } => {
            write!(f, "{pad}{dst} = call {func}(")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::TailCall { func, args } => {
            write!(f, "{pad}tcall {func}(")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::Ret(v) => writeln!(f, "{pad}ret {v};"),
        StmtKind::ArgsNum { dst, closure } => writeln!(f, "{pad}{dst} = argsnum {closure};"),
        StmtKind::Builtin { dst, op, args } => {
            write!(f, "{pad}{dst} = {}", op.name())?;
            for a in args {
                write!(f, " {a}")?;
            }
            writeln!(f, ";")
        }
        StmtKind::Alloc { dst, ctor, args } => {
            write!(f, "{pad}{dst} = alloc {ctor} (")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::CAlloc { dst, func, args } => {
            write!(f, "{pad}{dst} = calloc {func} (")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::CExtend { dst, closure, args } => {
            write!(f, "{pad}{dst} = cextend {closure} (")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::CallClosure { dst, closure, args } => {
            write!(f, "{pad}{dst} = call {closure} (")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::TailCallClosure { closure, args } => {
            write!(f, "{pad}tcall {closure} (")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::CallClosures { dst, closure, args } => {
            write!(f, "{pad}{dst} = ccall {closure} (")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::TailCallClosures { closure, args } => {
            write!(f, "{pad}tccall {closure} (")?;
            write_args(f, args)?;
            writeln!(f, ");")
        }
        StmtKind::StrUnop { dst, op, a } => writeln!(f, "{pad}{dst} = {} {a};", op.name()),
        StmtKind::StrCat { dst, a, b } => writeln!(f, "{pad}{dst} = strcat {a} {b};"),
        StmtKind::Trace(v) => writeln!(f, "{pad}trace {v};"),
        StmtKind::Fail(v) => writeln!(f, "{pad}fail {v};"),
        StmtKind::Dump => writeln!(f, "{pad}dump;"),
        StmtKind::Nop => writeln!(f, "{pad}nop;"),
        StmtKind::Block(body) => {
            writeln!(f, "{pad}{{")?;
            write_stmts(f, body, indent + 1)?;
            writeln!(f, "{pad}}};")
        }
        StmtKind::Case {
            ty,
            value,
            out,
            arms,
            default,
        } => {
            write!(f, "{pad}case[{ty}] {value}")?;
            if let Some(o) = out {
                write!(f, ", out: {o}")?;
            }
            writeln!(f, " {{")?;
            for arm in arms {
                writeln!(f, "{pad}  {}: {{", arm.ctor)?;
                write_stmts(f, &arm.body, indent + 2)?;
                writeln!(f, "{pad}  }};")?;
            }
            if let Some(d) = default {
                writeln!(f, "{pad}  default: {{")?;
                write_stmts(f, d, indent + 2)?;
                writeln!(f, "{pad}  }};")?;
            }
            writeln!(f, "{pad}}};")
        }
        StmtKind::Branch {
            cond,
            out,
            on_true,
            on_false,
        } => {
            match cond {
                Cond::NonZero(v) => write!(f, "{pad}br {v}")?,
                Cond::Cmp(op, a, b) => write!(f, "{pad}if {} {a} {b}", op.name())?,
            }
            if let Some(o) = out {
                write!(f, ", out: {o}")?;
            }
            writeln!(f, " {{")?;
            writeln!(f, "{pad}  true: {{")?;
            write_stmts(f, on_true, indent + 2)?;
            writeln!(f, "{pad}  }};")?;
            writeln!(f, "{pad}  false: {{")?;
            write_stmts(f, on_false, indent + 2)?;
            writeln!(f, "{pad}  }};")?;
            writeln!(f, "{pad}}};")
        }
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for t in &self.types {
            writeln!(f, "type {} {{", t.name)?;
            for c in &t.ctors {
                writeln!(f, "  {} : {};", c.name, c.ty)?;
            }
            writeln!(f, "}}\n")?;
        }
        for (i, func) in self.functions.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "function {}(", func.name)?;
            for (j, p) in func.params.iter().enumerate() {
                if j > 0 {
                    f.write_str(", ")?;
                }
                match &p.name {
                    Some(n) => write!(f, "{n} : {}", p.ty)?,
                    None => f.write_str(&p.ty)?,
                }
            }
            write!(f, ") : {}", func.ret)?;
            match &func.body {
                None => writeln!(f, ";")?,
                Some(body) => {
                    writeln!(f, " {{")?;
                    write_stmts(f, body, 1)?;
                    writeln!(f, "}}")?;
                }
            }
        }
        Ok(())
    }
}
