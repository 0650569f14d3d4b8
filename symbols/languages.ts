/**
 * The languages the symbol tools read: which files each serves (by
 * extension), the grammar (a WebAssembly file of `@vscode/tree-sitter-wasm`)
 * that parses them, and the tree-sitter query that finds their
 * definitions. A query names a definition's node with the capture of its
 * kind (`@function`, `@class`…) and its name with `@name`; where two
 * patterns capture one node, the first wins.
 *
 * @module
 */

import { blankUnreadableMacros } from "./c_macros.ts";

/** A language the symbol tools read. */
export interface SymbolLanguage {
  /** Its name, as answers show it ("typescript"). */
  readonly name: string;
  /** The grammar's file name in `@vscode/tree-sitter-wasm`'s `wasm/`. */
  readonly grammar: string;
  /** The definitions query (tree-sitter query syntax). */
  readonly query: string;
  /**
   * What to make of a file's text before parsing it, where the grammar
   * needs help; every line and column must stay where it was.
   */
  readonly prepare?: (text: string) => string;
}

const JS_COMMON = `
(function_declaration name: (_) @name) @function
(generator_function_declaration name: (_) @name) @function
(class_declaration name: (_) @name) @class
(method_definition name: (_) @name) @method
(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])) @function
(variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])) @function
(lexical_declaration (variable_declarator name: (identifier) @name)) @variable
(variable_declaration (variable_declarator name: (identifier) @name)) @variable
`;

const TS_EXTRA = `
(function_signature name: (_) @name) @function
(abstract_class_declaration name: (_) @name) @class
(abstract_method_signature name: (_) @name) @method
(public_field_definition name: (_) @name value: [(arrow_function) (function_expression)]) @method
(interface_declaration name: (_) @name) @interface
(method_signature name: (_) @name) @method
(type_alias_declaration name: (_) @name) @type
(enum_declaration name: (_) @name) @enum
(internal_module name: (_) @name) @namespace
(module name: (_) @name) @module
`;

const JS_EXTRA = `
(field_definition property: (_) @name value: [(arrow_function) (function_expression)]) @method
`;

const TYPESCRIPT = TS_EXTRA + JS_COMMON;

const CPP = `
(function_definition declarator: (function_declarator declarator: (_) @name)) @function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name))) @function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)))) @function
(function_definition declarator: (reference_declarator (function_declarator declarator: (_) @name))) @function
(template_declaration (function_definition declarator: (function_declarator declarator: (_) @name)) @function)
(function_definition declarator: (qualified_identifier name: (pointer_type_declarator declarator: (function_declarator declarator: (_) @name)))) @function
(declaration declarator: (init_declarator declarator: (function_declarator declarator: (_) @name) value: (initializer_list))) @function
(function_definition type: (struct_specifier) declarator: (identifier) @name body: (_)) @struct
(function_definition type: (union_specifier) declarator: (identifier) @name body: (_)) @struct
(class_specifier name: (_) @name body: (_)) @class
(struct_specifier name: (_) @name body: (_)) @struct
(union_specifier name: (_) @name body: (_)) @struct
(enum_specifier name: (_) @name body: (_)) @enum
(namespace_definition name: (_) @name) @namespace
(type_definition declarator: (type_identifier) @name) @type
(alias_declaration name: (_) @name) @type
`;

/** Every language, by name. */
export const LANGUAGES: Readonly<Record<string, SymbolLanguage>> = {
  typescript: {
    name: "typescript",
    grammar: "tree-sitter-typescript.wasm",
    query: TYPESCRIPT,
  },
  tsx: { name: "tsx", grammar: "tree-sitter-tsx.wasm", query: TYPESCRIPT },
  javascript: {
    name: "javascript",
    grammar: "tree-sitter-javascript.wasm",
    query: JS_EXTRA + JS_COMMON,
  },
  python: {
    name: "python",
    grammar: "tree-sitter-python.wasm",
    query: `
(class_definition name: (identifier) @name) @class
(function_definition name: (identifier) @name) @function
(expression_statement (assignment left: (identifier) @name right: (lambda))) @function
(module (expression_statement (assignment left: (identifier) @name)) @variable)
`,
  },
  go: {
    name: "go",
    grammar: "tree-sitter-go.wasm",
    query: `
(function_declaration name: (identifier) @name) @function
(method_declaration name: (field_identifier) @name) @method
(method_elem name: (field_identifier) @name) @method
(type_spec name: (type_identifier) @name type: (struct_type)) @struct
(type_spec name: (type_identifier) @name type: (interface_type)) @interface
(type_spec name: (type_identifier) @name) @type
(type_alias name: (type_identifier) @name) @type
(source_file (const_declaration (const_spec name: (identifier) @name) @constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @variable))
`,
  },
  rust: {
    name: "rust",
    grammar: "tree-sitter-rust.wasm",
    query: `
(function_item name: (identifier) @name) @function
(function_signature_item name: (identifier) @name) @function
(struct_item name: (type_identifier) @name) @struct
(union_item name: (type_identifier) @name) @struct
(enum_item name: (type_identifier) @name) @enum
(trait_item name: (type_identifier) @name) @trait
(impl_item type: (_) @name) @impl
(mod_item name: (identifier) @name) @module
(macro_definition name: (identifier) @name) @macro
(type_item name: (type_identifier) @name) @type
(const_item name: (identifier) @name) @constant
(static_item name: (identifier) @name) @constant
`,
  },
  java: {
    name: "java",
    grammar: "tree-sitter-java.wasm",
    query: `
(class_declaration name: (identifier) @name) @class
(interface_declaration name: (identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(record_declaration name: (identifier) @name) @class
(annotation_type_declaration name: (identifier) @name) @interface
(method_declaration name: (identifier) @name) @method
(constructor_declaration name: (identifier) @name) @method
`,
  },
  csharp: {
    name: "csharp",
    grammar: "tree-sitter-c-sharp.wasm",
    query: `
(class_declaration name: (identifier) @name) @class
(struct_declaration name: (identifier) @name) @struct
(interface_declaration name: (identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(record_declaration name: (identifier) @name) @class
(method_declaration name: (identifier) @name) @method
(constructor_declaration name: (identifier) @name) @method
(property_declaration name: (identifier) @name) @property
(namespace_declaration name: (_) @name) @namespace
(local_function_statement name: (identifier) @name) @function
`,
  },
  cpp: {
    name: "cpp",
    grammar: "tree-sitter-cpp.wasm",
    query: CPP,
    prepare: blankUnreadableMacros,
  },
  ruby: {
    name: "ruby",
    grammar: "tree-sitter-ruby.wasm",
    query: `
(method name: (_) @name) @method
(singleton_method name: (_) @name) @method
(class name: (_) @name) @class
(module name: (_) @name) @module
`,
  },
  php: {
    name: "php",
    grammar: "tree-sitter-php.wasm",
    query: `
(function_definition name: (name) @name) @function
(class_declaration name: (name) @name) @class
(interface_declaration name: (name) @name) @interface
(trait_declaration name: (name) @name) @trait
(enum_declaration name: (name) @name) @enum
(method_declaration name: (name) @name) @method
(namespace_definition name: (namespace_name) @name) @namespace
`,
  },
  bash: {
    name: "bash",
    grammar: "tree-sitter-bash.wasm",
    query: `(function_definition name: (word) @name) @function`,
  },
  powershell: {
    name: "powershell",
    grammar: "tree-sitter-powershell.wasm",
    query: `
(function_statement (function_name) @name) @function
(class_statement (simple_name) @name) @class
(class_method_definition (simple_name) @name) @method
`,
  },
  css: {
    name: "css",
    grammar: "tree-sitter-css.wasm",
    query: `
(rule_set (selectors) @name) @rule
(media_statement) @media
(keyframes_statement (keyframes_name) @name) @keyframes
`,
  },
  ini: {
    name: "ini",
    grammar: "tree-sitter-ini.wasm",
    query: `(section (section_name (text) @name)) @section`,
  },
};

const BY_EXTENSION: Readonly<Record<string, string>> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  py: "python",
  pyi: "python",
  go: "go",
  rs: "rust",
  java: "java",
  cs: "csharp",
  // C: the C++ grammar (no C grammar ships in @vscode/tree-sitter-wasm).
  c: "cpp",
  h: "cpp",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  "c++": "cpp",
  hh: "cpp",
  hpp: "cpp",
  hxx: "cpp",
  "h++": "cpp",
  ipp: "cpp",
  inl: "cpp",
  rb: "ruby",
  rake: "ruby",
  gemspec: "ruby",
  php: "php",
  sh: "bash",
  bash: "bash",
  ps1: "powershell",
  psm1: "powershell",
  css: "css",
  ini: "ini",
};

const BY_NAME: Readonly<Record<string, string>> = {
  Rakefile: "ruby",
  Gemfile: "ruby",
  ".bashrc": "bash",
  ".bash_profile": "bash",
};

/** The language of the file at `path` (by its name), or undefined. */
export function languageOf(path: string): SymbolLanguage | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const byName = BY_NAME[name];
  if (byName !== undefined) return LANGUAGES[byName];
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const id = BY_EXTENSION[name.slice(dot + 1).toLowerCase()];
  return id === undefined ? undefined : LANGUAGES[id];
}

/** The file extensions served, for messages ("ts, tsx, js…"). */
export const EXTENSIONS: readonly string[] = Object.keys(BY_EXTENSION);
