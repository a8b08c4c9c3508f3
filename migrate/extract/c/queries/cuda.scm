; Facts of C/C++/CUDA source. Comments and string literals are leaves, so nothing
; inside them is ever captured.

; Only node types here: a pattern with fields or children costs tree-sitter several ms to compile
; in every process (lint starts one per run). The captures that need a field (reference.call,
; reference.member, launch, include, macro, macro.name, macro.value, macro.body) are derived from
; @call, @include.directive, @define and @define.function in cuda_cpp.captures.

(call_expression) @call
(identifier) @reference.identifier
(type_identifier) @reference.type
(namespace_identifier) @reference.namespace

(preproc_include) @include.directive

(function_definition) @definition.function
(gnu_asm_expression) @asm

(preproc_def) @define
(preproc_function_def) @define.function
(preproc_params) @macro.params

[(preproc_if) (preproc_ifdef)] @conditional

(binary_expression) @binary
(for_statement) @for
(template_function) @template
(template_type) @template
(declaration) @declaration
[(optional_parameter_declaration) (field_declaration) (enumerator)] @binding
(parameter_declaration) @declaration
(assignment_expression) @assign
(namespace_alias_definition) @namespace_alias
[(type_definition) (alias_declaration)] @typedef
(number_literal) @number
(string_literal) @string
