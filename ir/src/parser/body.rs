//! Types, blocks, terminators and instructions: the body of a function.

use std::sync::Arc;

use super::*;

/// A function called as `fN`: the number the text gives it and where,
/// resolved once the whole module is read.
type TextCallee = (u32, SourceLoc);

impl<'a> Parser<'a> {
    // ----- types -----

    pub(super) fn ty(&mut self, depth: u32) -> Result<Type, ParseError> {
        if depth >= MAX_TYPE_DEPTH {
            return Err(self.error(ParseErrorKind::TypeTooDeep));
        }
        match self.tok.tok {
            Tok::Amp => {
                self.bump()?;
                if self.is_kw("mut") {
                    self.bump()?;
                    Ok(Type::reference(self.ty(depth + 1)?))
                } else {
                    Ok(Type::ImmutableReference(Arc::new(self.ty(depth + 1)?)))
                }
            }
            Tok::LBracket => {
                self.bump()?;
                let elements = if self.eat(Tok::LParen)? {
                    // `[(); 2]`: entries of no element, which Noir prints for
                    // arrays of the unit type.
                    // FIXME: `()` is read only as an empty element list and
                    // as an empty list of call results (`-> ()`); a value or
                    // parameter of type `()` is refused.
                    let mut elements = Vec::new();
                    if self.tok.tok != Tok::RParen {
                        elements.push(self.ty(depth + 1)?);
                        while self.eat(Tok::Comma)? {
                            elements.push(self.ty(depth + 1)?);
                        }
                    }
                    self.expect(Tok::RParen, "`,` or `)` in a tuple type")?;
                    elements
                } else {
                    vec![self.ty(depth + 1)?]
                };
                if self.eat(Tok::Semi)? {
                    let len = self.number_u32("an array length after `;`")?;
                    self.expect(Tok::RBracket, "`]` after the array length")?;
                    Ok(Type::Array(elements.into(), len))
                } else {
                    self.expect(Tok::RBracket, "`;` or `]` after the element type")?;
                    Ok(Type::Slice(elements.into()))
                }
            }
            Tok::Ident => {
                let text = self.tok.text;
                let ty = match text {
                    "Field" => Type::Field,
                    "bool" => Type::BOOL,
                    "function" => Type::Function,
                    "noisy" => Type::Noisy,
                    _ => {
                        let (signed, digits) = if let Some(d) = entity_number(text, b'u') {
                            (false, d)
                        } else if let Some(d) = entity_number(text, b'i') {
                            (true, d)
                        } else {
                            return Err(self.error(ParseErrorKind::UnknownType(text.into())));
                        };
                        let bits = digits.parse::<u64>().unwrap_or(u64::MAX);
                        if bits == 0 || bits > u64::from(MAX_INT_BITS) {
                            return Err(self.error(ParseErrorKind::BadBitWidth(bits)));
                        }
                        if signed {
                            Type::Signed(bits as u32)
                        } else {
                            Type::Unsigned(bits as u32)
                        }
                    }
                };
                self.bump()?;
                Ok(ty)
            }
            _ => Err(self.expected("a type")),
        }
    }

    // ----- blocks -----

    pub(super) fn block(
        &mut self,
        state: &mut FuncState,
        id: FuncId,
        fixups: &mut Vec<CallFixup>,
    ) -> Result<(), ParseError> {
        let loc = self.tok.loc;
        let label_token = self.tok;
        let block = self.block_ref(state)?;
        if state.func.layout.is_block_inserted(block) {
            return Err(ParseError {
                loc: label_token.loc,
                kind: ParseErrorKind::BlockRedefined(block),
            });
        }
        state.func.layout.append_block(block);
        state.func.block_locs[block] = loc;
        self.expect(Tok::LParen, "`(` after the block label")?;
        if self.tok.tok != Tok::RParen {
            loop {
                let value = self.value_def(state)?;
                self.expect(Tok::Colon, "`:` after the parameter name")?;
                let ty = self.ty(0)?;
                state.func.dfg.attach_block_param(block, value, ty);
                if !self.eat(Tok::Comma)? {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "`,` or `)` after a block parameter")?;
        self.eat(Tok::Colon)?;
        loop {
            if self.tok.tok == Tok::RBrace || self.at_block_start() {
                // A block without a terminator: the verifier reports it.
                return Ok(());
            }
            if self.tok.tok == Tok::Ident {
                match self.tok.text {
                    "jmp" | "jmpif" | "return" | "unreachable" => {
                        let loc = self.tok.loc;
                        let terminator = self.terminator(state)?;
                        state.func.dfg.set_terminator(block, terminator);
                        state.func.terminator_locs[block] = loc;
                        return Ok(());
                    }
                    _ => {}
                }
            }
            self.instruction(state, block, id, fixups)?;
        }
    }

    pub(super) fn terminator(&mut self, state: &mut FuncState) -> Result<Terminator, ParseError> {
        let opcode = self.bump()?.text;
        Ok(match opcode {
            "jmp" => {
                let (destination, arguments) = self.edge(state)?;
                Terminator::Jmp {
                    destination,
                    arguments,
                }
            }
            "jmpif" => {
                let condition = self.operand(state, "a condition after `jmpif`")?;
                self.eat(Tok::Comma)?;
                self.expect_kw("then", "`then` after the condition")?;
                self.expect(Tok::Colon, "`:` after `then`")?;
                let (then_destination, then_arguments) = self.edge(state)?;
                self.expect(Tok::Comma, "`,` after the then destination")?;
                self.expect_kw("else", "`else` after the then destination")?;
                self.expect(Tok::Colon, "`:` after `else`")?;
                let (else_destination, else_arguments) = self.edge(state)?;
                Terminator::JmpIf {
                    condition,
                    then_destination,
                    then_arguments,
                    else_destination,
                    else_arguments,
                }
            }
            "return" => {
                let mut values = Vec::new();
                let operand = is_value_name(&self.tok)
                    || (is_other_value_name(&self.tok) && !self.next_is(Tok::LParen))
                    || is_global_name(&self.tok)
                    || is_function_name(&self.tok)
                    || is_type_start(&self.tok);
                if operand {
                    loop {
                        values.push(self.operand(state, "a returned value")?);
                        if !self.eat(Tok::Comma)? {
                            break;
                        }
                    }
                }
                Terminator::Return { values }
            }
            _ => Terminator::Unreachable,
        })
    }

    /// A branch destination with its arguments, `bN(v1, v2)`; the
    /// parentheses may be left out when there are none.
    fn edge(&mut self, state: &mut FuncState) -> Result<(Block, Vec<Value>), ParseError> {
        let destination = self.block_ref(state)?;
        let arguments = if self.eat(Tok::LParen)? {
            let args = self.operand_list(state, Tok::RParen, "a jump argument")?;
            self.expect(Tok::RParen, "`,` or `)` after a jump argument")?;
            args
        } else {
            Vec::new()
        };
        Ok((destination, arguments))
    }

    /// An optional `, "message"` after a `constrain` or a `range_check`.
    fn message(&mut self) -> Result<Option<String>, ParseError> {
        if !self.eat(Tok::Comma)? {
            return Ok(None);
        }
        let text = self.expect(Tok::Str, "a message string after `,`")?.text;
        Ok(Some(unescape(text)))
    }

    /// An optional `, "message"` or `, data v1, v2` after a `constrain`.
    fn assert_message(
        &mut self,
        state: &mut FuncState,
    ) -> Result<Option<AssertMessage>, ParseError> {
        if !self.eat(Tok::Comma)? {
            return Ok(None);
        }
        if self.tok.tok == Tok::Ident && self.tok.text == "data" {
            let line = self.bump()?.loc.line;
            // An instruction is one line: a name on the next line is the next
            // instruction, not a value of the payload.
            if self.tok.loc.line != line {
                return Err(self.expected("a value after `data`"));
            }
            let mut payload = vec![self.operand(state, "a value after `data`")?];
            while self.eat(Tok::Comma)? {
                payload.push(self.operand(state, "a value after `,`")?);
            }
            return Ok(Some(AssertMessage::Data(payload)));
        }
        let text = self
            .expect(Tok::Str, "a message string or `data` after `,`")?
            .text;
        Ok(Some(AssertMessage::Static(unescape(text))))
    }

    pub(super) fn instruction(
        &mut self,
        state: &mut FuncState,
        block: Block,
        id: FuncId,
        fixups: &mut Vec<CallFixup>,
    ) -> Result<(), ParseError> {
        let loc = self.tok.loc;
        let mut results = std::mem::take(&mut state.results);
        results.clear();
        let names_result = is_value_name(&self.tok)
            || (is_other_value_name(&self.tok)
                && (self.next_is(Tok::Eq) || self.next_is(Tok::Comma)));
        if names_result {
            loop {
                results.push(self.value_def(state)?);
                if !self.eat(Tok::Comma)? {
                    break;
                }
            }
            self.expect(Tok::Eq, "`,` or `=` after the result names")?;
        }
        if self.tok.tok != Tok::Ident {
            return Err(self.expected("an instruction"));
        }
        let opcode_token = self.bump()?;
        let opcode = opcode_token.text;
        let mut call_target = None;
        let (data, produces) = match opcode {
            "allocate" | "load" | "store" => self.memory_inst(state, opcode)?,
            "make_array" | "array_get" | "array_set" => self.array_inst(state, opcode)?,
            "constrain" | "range_check" | "enable_side_effects" | "if" => {
                self.predicate_inst(state, opcode)?
            }
            "call" => {
                let (data, produces, target) = self.call_inst(state)?;
                call_target = target;
                (data, produces)
            }
            "encode" | "decode" | "reduce_noise" => self.noisy_inst(state, opcode)?,
            "inc_rc" => {
                let arg = self.operand(state, "an operand after `inc_rc`")?;
                (InstructionData::IncRc { arg }, Results::None)
            }
            "dec_rc" => {
                let arg = self.operand(state, "an operand after `dec_rc`")?;
                (InstructionData::DecRc { arg }, Results::None)
            }
            "nop" => (InstructionData::Nop, Results::None),
            _ => match self.arithmetic_inst(state, opcode)? {
                Some(parsed) => parsed,
                None => {
                    return Err(ParseError {
                        loc: opcode_token.loc,
                        kind: ParseErrorKind::UnknownInstruction(opcode.into()),
                    })
                }
            },
        };
        let expected = match &produces {
            Results::None => 0,
            Results::One(_) | Results::SameAs(_) => 1,
            Results::Many(types) => types.len(),
        };
        if expected != results.len() {
            return Err(ParseError {
                loc,
                kind: ParseErrorKind::ResultCount {
                    opcode: opcode.into(),
                    expected,
                    found: results.len(),
                },
            });
        }
        let inst = state.func.dfg.make_inst(data);
        state.func.layout.append_inst(inst, block);
        state.func.inst_locs[inst] = loc;
        let offset = std::mem::take(&mut state.offset);
        if offset != 0 {
            state.func.array_offsets.insert(inst, offset);
        }
        if let Some((number, loc)) = call_target {
            fixups.push(CallFixup {
                func: id,
                inst,
                number,
                loc,
            });
        }
        self.attach_results(state, inst, &results, produces);
        state.results = results;
        Ok(())
    }

    /// Gives `inst` its result values, typed as `produces` says (or, for a
    /// result typed as an operand not yet defined, once the function ends).
    fn attach_results(
        &mut self,
        state: &mut FuncState,
        inst: Inst,
        results: &[Value],
        produces: Results,
    ) {
        match produces {
            Results::None => {}
            Results::One(ty) => state.func.dfg.attach_result(inst, results[0], ty),
            Results::SameAs(source) => {
                let ty = state.known_type(source);
                let known = ty.is_some();
                state
                    .func
                    .dfg
                    .attach_result(inst, results[0], ty.unwrap_or(Type::Field));
                if !known {
                    state.pending.push((results[0], source));
                    state.pending_set.insert(results[0]);
                }
            }
            Results::Many(types) => {
                for (&value, ty) in results.iter().zip(types) {
                    state.func.dfg.attach_result(inst, value, ty);
                }
            }
        }
    }

    /// The binary operators, `not`, `cast` and `truncate`; `None` if
    /// `opcode` is none of them.
    fn arithmetic_inst(
        &mut self,
        state: &mut FuncState,
        opcode: &str,
    ) -> Result<Option<(InstructionData, Results)>, ParseError> {
        Ok(Some(match opcode {
            "not" => {
                let arg = self.operand(state, "an operand after `not`")?;
                (InstructionData::Not { arg }, Results::SameAs(arg))
            }
            "cast" => {
                let arg = self.operand(state, "an operand after `cast`")?;
                self.expect_kw("as", "`as` after the operand")?;
                let ty = self.ty(0)?;
                let data = InstructionData::Cast {
                    arg,
                    ty: ty.clone(),
                };
                (data, Results::One(ty))
            }
            "truncate" => {
                let arg = self.operand(state, "an operand after `truncate`")?;
                self.expect_kw("to", "`to` after the operand")?;
                let bits = self.number_u32("a bit count after `to`")?;
                self.expect_kw("bits", "`bits` after the bit count")?;
                self.expect(Tok::Comma, "`,` after `bits`")?;
                self.expect_kw("max_bit_size", "`max_bit_size`")?;
                self.expect(Tok::Colon, "`:` after `max_bit_size`")?;
                let max_bit_size = self.number_u32("the maximum bit size")?;
                let data = InstructionData::Truncate {
                    arg,
                    bits,
                    max_bit_size,
                };
                (data, Results::SameAs(arg))
            }
            _ => {
                let Some(op) = BinaryOp::from_name(opcode) else {
                    return Ok(None);
                };
                let lhs = self.operand(state, "a left operand")?;
                self.expect(Tok::Comma, "`,` after the left operand")?;
                let rhs = self.operand(state, "a right operand")?;
                let produces = if op.is_comparison() {
                    Results::One(Type::BOOL)
                } else if lhs.as_u32() & CONST_TAG != 0 {
                    // `mul u5 4, v2`: a plaintext constant scales a `noisy` value.
                    Results::SameAs(rhs)
                } else {
                    Results::SameAs(lhs)
                };
                (InstructionData::Binary { op, lhs, rhs }, produces)
            }
        }))
    }

    /// `allocate`, `load`, `store`.
    fn memory_inst(
        &mut self,
        state: &mut FuncState,
        opcode: &str,
    ) -> Result<(InstructionData, Results), ParseError> {
        Ok(match opcode {
            "allocate" => {
                self.expect(Tok::Arrow, "`->` and the reference type after `allocate`")?;
                (InstructionData::Allocate, Results::One(self.ty(0)?))
            }
            "load" => {
                let address = self.operand(state, "an address after `load`")?;
                self.expect(Tok::Arrow, "`->` and the loaded type after the address")?;
                (InstructionData::Load { address }, Results::One(self.ty(0)?))
            }
            _ => {
                let value = self.operand(state, "a value after `store`")?;
                if !(self.is_kw("at") || self.is_kw("in")) {
                    return Err(self.expected("`at` after the stored value"));
                }
                self.bump()?;
                let address = self.operand(state, "an address after `at`")?;
                (InstructionData::Store { value, address }, Results::None)
            }
        })
    }

    /// `make_array` (of operands, or of a byte string), `array_get`,
    /// `array_set`.
    fn array_inst(
        &mut self,
        state: &mut FuncState,
        opcode: &str,
    ) -> Result<(InstructionData, Results), ParseError> {
        Ok(match opcode {
            "make_array" if self.tok.tok == Tok::Amp || self.is_kw("b") => {
                self.byte_string(state)?
            }
            "make_array" => {
                self.expect(Tok::LBracket, "`[` after `make_array`")?;
                let elements = self.operand_list(state, Tok::RBracket, "an array element")?;
                self.expect(Tok::RBracket, "`,` or `]` after an array element")?;
                self.expect(Tok::Colon, "`:` and the array type after the elements")?;
                let ty = self.ty(0)?;
                let data = InstructionData::MakeArray {
                    elements,
                    ty: Box::new(ty.clone()),
                };
                (data, Results::One(ty))
            }
            "array_get" => {
                let array = self.operand(state, "an array after `array_get`")?;
                self.expect(Tok::Comma, "`,` after the array")?;
                self.expect_kw("index", "`index`")?;
                let index = self.offset_index(state)?;
                self.expect(Tok::Arrow, "`->` and the element type after the index")?;
                let ty = self.ty(0)?;
                (InstructionData::ArrayGet { array, index }, Results::One(ty))
            }
            _ => {
                let mutable = self.is_kw("mut");
                if mutable {
                    self.bump()?;
                }
                let array = self.operand(state, "an array after `array_set`")?;
                self.expect(Tok::Comma, "`,` after the array")?;
                self.expect_kw("index", "`index`")?;
                let index = self.offset_index(state)?;
                self.expect(Tok::Comma, "`,` after the index")?;
                self.expect_kw("value", "`value`")?;
                let value = self.operand(state, "a value after `value`")?;
                let data = InstructionData::ArraySet {
                    array,
                    index,
                    value,
                    mutable,
                };
                (data, Results::SameAs(array))
            }
        })
    }

    /// An `array_get` or `array_set` index, with Brillig's offset when it
    /// is written `u32 4 minus 3`: the element's index (here 1), the
    /// offset kept in `state.offset` for the instruction.
    fn offset_index(&mut self, state: &mut FuncState) -> Result<Value, ParseError> {
        let index_loc = self.tok.loc;
        let index = self.operand(state, "an index after `index`")?;
        if !self.is_kw("minus") {
            return Ok(index);
        }
        let minus_loc = self.tok.loc;
        let constrained = state.func.is_acir();
        if constrained {
            // Noir's parser too: the offset is Brillig's memory layout.
            return Err(ParseError {
                loc: minus_loc,
                kind: ParseErrorKind::Expected {
                    expected: "no array offset in an `acir` function (offsets are Brillig's)"
                        .into(),
                    found: "`minus`".into(),
                },
            });
        }
        self.bump()?;
        let offset_loc = self.tok.loc;
        let offset = self.number_u32("an offset after `minus`")?;
        let Some((ty, constant)) = state.constant_of(index) else {
            return Err(ParseError {
                loc: index_loc,
                kind: ParseErrorKind::Expected {
                    expected: "a constant index before `minus`".into(),
                    found: "a value".into(),
                },
            });
        };
        let element = constant
            .to_u128()
            .and_then(|c| c.checked_sub(u128::from(offset)));
        let Some(element) = element else {
            return Err(ParseError {
                loc: offset_loc,
                kind: ParseErrorKind::Expected {
                    expected: format!("an offset no larger than the index {constant}"),
                    found: format!("`{offset}`"),
                },
            });
        };
        state.offset = offset;
        Ok(state.constant(ty, ConstValue::from_u128(element)))
    }

    /// Noir's form of a byte array: `b"ABC"` is `[u8; 3]`, `&b"ABC"` the
    /// slice `[u8]`.
    fn byte_string(
        &mut self,
        state: &mut FuncState,
    ) -> Result<(InstructionData, Results), ParseError> {
        let slice = self.eat(Tok::Amp)?;
        self.expect_kw("b", "`b` and a byte string after `&`")?;
        let text = self.expect(Tok::Str, "a byte string after `b`")?.text;
        let bytes = unescape(text);
        let elements: Vec<Value> = bytes
            .bytes()
            .map(|b| state.constant(Type::Unsigned(8), ConstValue::from_u128(u128::from(b))))
            .collect();
        let ty = if slice {
            Type::Slice(vec![Type::Unsigned(8)].into())
        } else {
            Type::array(Type::Unsigned(8), elements.len() as u32)
        };
        let data = InstructionData::MakeArray {
            elements,
            ty: Box::new(ty.clone()),
        };
        Ok((data, Results::One(ty)))
    }

    /// `constrain`, `range_check`, `enable_side_effects`, `if`: the
    /// instructions about predicates and checks.
    fn predicate_inst(
        &mut self,
        state: &mut FuncState,
        opcode: &str,
    ) -> Result<(InstructionData, Results), ParseError> {
        Ok(match opcode {
            "constrain" => {
                let lhs = self.operand(state, "an operand after `constrain`")?;
                let equal = match self.tok.tok {
                    Tok::EqEq => true,
                    Tok::NotEq => false,
                    _ => return Err(self.expected("`==` or `!=` after the left operand")),
                };
                self.bump()?;
                let rhs = self.operand(state, "an operand after the comparison")?;
                let message = self.assert_message(state)?;
                let data = InstructionData::Constrain {
                    lhs,
                    rhs,
                    equal,
                    message: message.map(Box::new),
                };
                (data, Results::None)
            }
            "range_check" => {
                let arg = self.operand(state, "an operand after `range_check`")?;
                self.expect_kw("to", "`to` after the operand")?;
                let bits = self.number_u32("a bit count after `to`")?;
                self.expect_kw("bits", "`bits` after the bit count")?;
                let message = self.message()?;
                let data = InstructionData::RangeCheck { arg, bits, message };
                (data, Results::None)
            }
            "enable_side_effects" => {
                let condition = self.operand(state, "a condition after `enable_side_effects`")?;
                let data = InstructionData::EnableSideEffects { condition };
                (data, Results::None)
            }
            _ => {
                let then_condition = self.operand(state, "a condition after `if`")?;
                self.expect_kw("then", "`then` after the condition")?;
                let then_value = self.operand(state, "a value after `then`")?;
                self.expect_kw("else", "`else` after the then value")?;
                self.expect(Tok::LParen, "`(` after `else`")?;
                self.expect_kw("if", "`if` after `else (`")?;
                let else_condition = self.operand(state, "the else condition")?;
                self.expect(Tok::RParen, "`)` after the else condition")?;
                let else_value = self.operand(state, "a value after the else condition")?;
                let data = InstructionData::IfElse {
                    then_condition,
                    then_value,
                    else_condition,
                    else_value,
                };
                (data, Results::SameAs(then_value))
            }
        })
    }

    /// `call F(args) -> types`; with the text's number of the function
    /// called when `F` is `fN`, to be resolved once the module is read.
    fn call_inst(
        &mut self,
        state: &mut FuncState,
    ) -> Result<(InstructionData, Results, Option<TextCallee>), ParseError> {
        let (callee, target) = self.callee(state)?;
        self.expect(Tok::LParen, "`(` after the function")?;
        let args = self.operand_list(state, Tok::RParen, "a call argument")?;
        self.expect(Tok::RParen, "`,` or `)` after a call argument")?;
        let mut types = Vec::new();
        if self.eat(Tok::Arrow)? {
            if self.eat(Tok::LParen)? {
                if self.tok.tok != Tok::RParen {
                    loop {
                        types.push(self.ty(0)?);
                        if !self.eat(Tok::Comma)? {
                            break;
                        }
                    }
                }
                self.expect(Tok::RParen, "`,` or `)` after a result type")?;
            } else {
                types.push(self.ty(0)?);
            }
        }
        let data = InstructionData::Call { callee, args };
        Ok((data, Results::Many(types), target))
    }

    /// What a `call` calls, as Noir's parser reads it: `fN` is a function of
    /// the module, a value name a value of type `function`, then a builtin,
    /// and last a foreign function, whose name must contain `oracle` (the
    /// rule by which Noir's parser tells an oracle from a misspelt name).
    fn callee(
        &mut self,
        state: &mut FuncState,
    ) -> Result<(Callee, Option<TextCallee>), ParseError> {
        if self.tok.tok != Tok::Ident {
            return Err(self.expected("a function after `call`"));
        }
        let token = self.tok;
        if entity_number(token.text, b'f').is_some() {
            let number = self.entity(b'f')?;
            self.bump()?;
            return Ok((
                Callee::Function(FuncId::from_u32(0)),
                Some((number, token.loc)),
            ));
        }
        if is_value_name(&token) || state.names.contains_key(token.text) {
            let value = self.operand(state, "a function value")?;
            return Ok((Callee::Value(value), None));
        }
        let callee = if let Some(builtin) = Builtin::from_name(token.text) {
            if BuiltinNames::of_spelling(token.text) == BuiltinNames::List {
                state.func.builtin_names = BuiltinNames::List;
            }
            Callee::Builtin(builtin)
        } else if token.text.contains("oracle") {
            Callee::Foreign(state.func.dfg.foreign(token.text))
        } else {
            return Err(self.error(ParseErrorKind::UnknownFunction(token.text.into())));
        };
        self.bump()?;
        Ok((callee, None))
    }

    /// `encode`, `decode`, `reduce_noise`.
    fn noisy_inst(
        &mut self,
        state: &mut FuncState,
        opcode: &str,
    ) -> Result<(InstructionData, Results), ParseError> {
        Ok(match opcode {
            "encode" => {
                let arg = self.operand(state, "an operand after `encode`")?;
                self.expect(Tok::Arrow, "`->` and `noisy` after the operand")?;
                (InstructionData::Encode { arg }, Results::One(self.ty(0)?))
            }
            "decode" => {
                let arg = self.operand(state, "an operand after `decode`")?;
                self.expect(Tok::Arrow, "`->` and `u5` after the operand")?;
                (InstructionData::Decode { arg }, Results::One(self.ty(0)?))
            }
            _ => {
                let arg = self.operand(state, "an operand after `reduce_noise`")?;
                (
                    InstructionData::ReduceNoise { arg },
                    Results::One(Type::Noisy),
                )
            }
        })
    }
}
