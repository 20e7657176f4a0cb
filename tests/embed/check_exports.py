#!/usr/bin/env python3
# tests/embed/check_exports.py INCLUDE_DIR LIBGYRE_SO — the installed API is exported, and only the API.
#
# Parses <gyre/gyre.hpp> from INCLUDE_DIR with clang (its JSON AST gives each declaration's
# mangled name) and lists every function and extern variable that the installed headers declare
# without defining: each must be in LIBGYRE_SO's dynamic symbol table, or an embedder calling it
# would not link (a declaration missing GYRE_API). Then checks that the library exports nothing
# of the dependencies it hides (Asio, nlohmann_json, libsodium, oneTBB). Prints the counts;
# exits 1 naming what is wrong.
import json
import os
import subprocess
import sys

FUNCTIONS = {'FunctionDecl', 'CXXMethodDecl', 'CXXConstructorDecl', 'CXXDestructorDecl', 'CXXConversionDecl'}
TEMPLATES = {'ClassTemplateDecl', 'FunctionTemplateDecl', 'ClassTemplatePartialSpecializationDecl'}


def declared_here(include_dir):
    """(header:line, name, mangled name) of each function or variable the headers declare but do not define."""
    cmd = ['clang++', '-std=c++20', '-x', 'c++', '-fsyntax-only', '-Xclang', '-ast-dump=json', '-I', include_dir, '-']
    ast = json.loads(subprocess.run(cmd, input=b'#include <gyre/gyre.hpp>\n', capture_output=True, check=True).stdout)
    root = os.path.abspath(include_dir) + os.sep
    found = {}
    where = {'file': None, 'line': 0}  # clang's JSON states a file or line only when it changes

    def locate(node):
        loc = node.get('loc', {})
        for part in (loc, loc.get('expansionLoc', {})):
            if 'file' in part:
                where['file'] = part['file']
            if 'line' in part:
                where['line'] = part['line']
                break

    def walk(node, in_template):
        kind = node.get('kind')
        locate(node)
        if kind in TEMPLATES:
            in_template = True  # instantiated by the embedder, not exported
        if kind == 'NamespaceDecl' and not node.get('name'):
            return  # anonymous namespace: internal linkage
        ours = where['file'] is not None and os.path.abspath(where['file']).startswith(root)
        if ours and not in_template and node.get('mangledName'):
            inner = node.get('inner', [])
            if kind in FUNCTIONS:
                defined = any(c.get('kind') == 'CompoundStmt' for c in inner)
                header_only = (defined or node.get('inline') or node.get('constexpr') or node.get('isImplicit')
                               or node.get('explicitlyDeleted') or node.get('explicitlyDefaulted') or node.get('pure')
                               or (kind == 'FunctionDecl' and node.get('storageClass') == 'static'))
                if not header_only:
                    found[node['mangledName']] = (os.path.relpath(where['file'], include_dir) + ':' + str(where['line']),
                                                  node.get('name'))
            elif kind == 'VarDecl' and node.get('storageClass') == 'extern' and not inner:
                found[node['mangledName']] = (os.path.relpath(where['file'], include_dir) + ':' + str(where['line']),
                                              node.get('name'))
        for child in node.get('inner', []):
            walk(child, in_template)

    walk(ast, False)
    return found


def exported(library):
    out = subprocess.run(['nm', '-D', '--defined-only', library], capture_output=True, check=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def main():
    include_dir, library = sys.argv[1], sys.argv[2]
    declared = declared_here(include_dir)
    symbols = exported(library)
    missing = sorted((where, name, mangled) for mangled, (where, name) in declared.items() if mangled not in symbols)
    demangled = subprocess.run(['c++filt'], input='\n'.join(sorted(symbols)), capture_output=True, check=True,
                               text=True).stdout.splitlines()
    leaked = {dep: [s for s in demangled if needle in s]
              for dep, needle in (('Asio', 'asio::'), ('nlohmann_json', 'nlohmann'), ('libsodium', 'sodium'),
                                  ('oneTBB', 'tbb::'))}
    print(f'{len(declared)} functions and variables the installed headers declare without defining; '
          f'{len(symbols)} symbols exported; ' + ', '.join(f'{dep} {len(s)}' for dep, s in leaked.items()))
    ok = len(declared) > 0
    for where, name, mangled in missing:
        print(f'not exported: {where} {name} ({mangled}): its declaration needs GYRE_API')
        ok = False
    for dep, names in leaked.items():
        for s in names[:20]:
            print(f'exported from {dep}: {s}')
        if names:
            ok = False
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
