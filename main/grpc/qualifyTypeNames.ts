import type { DescriptorProto, FieldDescriptorProto, FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { AppError } from '../../shared/errors';

type SymbolKind = 'package' | 'message' | 'enum' | 'service';

/**
 * protoc writes every type reference fully qualified (`.pkg.Shape`); descriptors built at run time by
 * protobufjs — @grpc/proto-loader, and so the reference Node reflection @grpc/reflection — keep the
 * name as written in the .proto, relative to where it is used (`Shape`, `Shape.Style`). This rewrites
 * each relative name in `files` (in place) to the fully qualified one by protobuf's scoping rules:
 * the first part of the name is looked up from the innermost scope outward, among the symbols of
 * the file and the files it imports; once found, the rest is looked up inside it.
 *
 * proto-loader's files also declare no imports: the files defining the types they use come in the
 * same reflection answer. So a name the file and its imports do not define is looked up, by the
 * same rules, among all the files received (`files`) and `bundled` (the well-known types), and the
 * file defining it is added to the imports, so that a descriptor registry can be built from them.
 * A name that resolves to nothing is refused with the file, the field and the name.
 */
export function qualifyTypeNames(files: FileDescriptorProto[], bundled: FileDescriptorProto[], address: string): void {
  const byName = new Map([...bundled, ...files].map((file) => [file.name, file]));
  const everything = new Map<string, SymbolKind>();
  const definedIn = new Map<string, string>();
  for (const file of byName.values()) addFileSymbols(file, everything, definedIn);
  for (const file of files) {
    const symbols = visibleSymbols(file, (name) => byName.get(name));
    const qualify = (typeName: string, usedBy: string, what: string): string => {
      if (!typeName || typeName.startsWith('.')) return typeName;
      const resolved = resolveRelative(typeName, usedBy, symbols) ?? resolveRelative(typeName, usedBy, everything);
      if (!resolved) throw new AppError('ExecutionFailed', `${address} reflection sent ${file.name}, whose ${what} ${usedBy} names type ${typeName}, which none of the files it sent defines.`, { step: 'reflection' });
      const owner = definedIn.get(resolved.slice(1));
      if (owner && owner !== file.name && !file.dependency.includes(owner)) file.dependency.push(owner);
      return resolved;
    };
    const qualifyField = (field: FieldDescriptorProto, scope: string) => {
      const usedBy = join(scope, field.name);
      field.typeName = qualify(field.typeName, usedBy, 'field');
      field.extendee = qualify(field.extendee, usedBy, 'extension');
    };
    const visit = (message: DescriptorProto, scope: string) => {
      const name = join(scope, message.name);
      for (const field of message.field) qualifyField(field, name);
      for (const extension of message.extension) qualifyField(extension, name);
      for (const nested of message.nestedType) visit(nested, name);
    };
    for (const message of file.messageType) visit(message, file.package);
    for (const extension of file.extension) qualifyField(extension, file.package);
    for (const service of file.service) {
      for (const method of service.method) {
        const usedBy = join(join(file.package, service.name), method.name);
        method.inputType = qualify(method.inputType, usedBy, 'method');
        method.outputType = qualify(method.outputType, usedBy, 'method');
      }
    }
  }
}

/**
 * protoc's lookup (DescriptorBuilder::LookupSymbol): `scope` is the full name of what uses the type.
 * Fields and enum values are symbols too, but never aggregates nor types, so a match on one is
 * passed over exactly as protoc passes it over; they need not be listed.
 */
export function resolveRelative(typeName: string, scope: string, symbols: ReadonlyMap<string, SymbolKind>): string | undefined {
  const [first, ...rest] = typeName.split('.');
  const scopeParts = scope ? scope.split('.') : [];
  for (let depth = scopeParts.length; depth >= 0; depth--) {
    const candidate = join(scopeParts.slice(0, depth).join('.'), first!);
    const kind = symbols.get(candidate);
    if (!kind) continue;
    if (rest.length === 0) {
      // A package or service of that name does not hide a type further out.
      if (kind === 'message' || kind === 'enum') return `.${candidate}`;
      continue;
    }
    // The first part is found (every kind listed is an aggregate): the rest must be inside it.
    const full = `${candidate}.${rest.join('.')}`;
    const fullKind = symbols.get(full);
    return fullKind === 'message' || fullKind === 'enum' ? `.${full}` : undefined;
  }
  return undefined;
}

/** The symbols a file may name: its own and those of its imports (public imports followed). */
function visibleSymbols(file: FileDescriptorProto, lookup: (name: string) => FileDescriptorProto | undefined): Map<string, SymbolKind> {
  const symbols = new Map<string, SymbolKind>();
  const seen = new Set<string>();
  const add = (visible: FileDescriptorProto, followAll: boolean) => {
    if (seen.has(visible.name)) return;
    seen.add(visible.name);
    addFileSymbols(visible, symbols);
    const dependencies = followAll ? visible.dependency : visible.publicDependency.map((index) => visible.dependency[index]!);
    for (const dependency of dependencies) {
      const imported = lookup(dependency);
      if (imported) add(imported, false);
    }
  };
  add(file, true);
  return symbols;
}

function addFileSymbols(file: FileDescriptorProto, symbols: Map<string, SymbolKind>, definedIn?: Map<string, string>) {
  const define = (name: string, kind: SymbolKind) => {
    symbols.set(name, kind);
    definedIn?.set(name, file.name);
  };
  const packageParts = file.package ? file.package.split('.') : [];
  for (let depth = 1; depth <= packageParts.length; depth++) {
    const name = packageParts.slice(0, depth).join('.');
    if (!symbols.has(name)) symbols.set(name, 'package');
  }
  const addMessage = (message: DescriptorProto, scope: string) => {
    const name = join(scope, message.name);
    define(name, 'message');
    for (const nested of message.enumType) define(join(name, nested.name), 'enum');
    for (const nested of message.nestedType) addMessage(nested, name);
  };
  for (const message of file.messageType) addMessage(message, file.package);
  for (const enumType of file.enumType) define(join(file.package, enumType.name), 'enum');
  for (const service of file.service) define(join(file.package, service.name), 'service');
}

function join(scope: string, name: string): string {
  return scope ? `${scope}.${name}` : name;
}
