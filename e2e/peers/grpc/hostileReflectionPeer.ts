import { create, fromBinary, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import {
  DescriptorProtoSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  type DescriptorProto,
  type FileDescriptorProto,
} from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { ServerReflectionRequestSchema, ServerReflectionResponseSchema } from '../../../main/grpc/gen/grpc/reflection/v1/reflection_pb';
import type { GrpcPeer } from './grpcPeers';

/**
 * A hand-written hostile gRPC server (@grpc/grpc-js, in the test's process) whose server reflection
 * serves descriptors made to exhaust a client:
 *
 * - `hostile/v1/dag.proto`: messages `Level0` … `Level<depth>`, each with two fields (`left`,
 *   `right`) of the next level — about 1 KB of descriptor whose unfolded JSON Schema doubles at every
 *   level (2^30 copies of the last level at depth 30). Service `hostile.v1.Dag` has a unary `Echo`
 *   taking and returning `Level0`, and a server-streaming `Flood` that sends the last level without
 *   end: small messages, or 1 MiB each when the request's `leaf` is `"big"`.
 * - `endlessImports`: dag.proto imports `hostile/v1/chain0.proto`, which imports chain1.proto, and
 *   so on without end; each chain file carries a message whose name is `padBytes` long.
 */
export interface HostileReflectionPeer extends GrpcPeer {
  /** Messages Flood has written so far (all its calls together). */
  floodMessagesSent(): number;
  /** Resolves when a Flood call has been canceled by the client. */
  floodCanceled(): Promise<void>;
  /** Chain files reflection has been asked for. */
  chainFilesServed(): number;
}

export interface HostileReflectionOptions {
  /** The last level of the doubling DAG (default 30). */
  depth?: number;
  /** Import an endless chain of files, each padded with a message name of this many characters. */
  endlessImports?: { padBytes: number };
}

const PACKAGE = 'hostile.v1';
const DAG_FILE = 'hostile/v1/dag.proto';
const chainFile = (index: number) => `hostile/v1/chain${index}.proto`;

/** The doubling DAG's file (see above); exported for tests that build schemas without a server. */
export function dagFile(depth: number, importsChain = false): FileDescriptorProto {
  const messages: DescriptorProto[] = [];
  for (let level = 0; level < depth; level++) {
    const next = `.${PACKAGE}.Level${level + 1}`;
    messages.push(
      create(DescriptorProtoSchema, {
        name: `Level${level}`,
        field: ['left', 'right'].map((name, index) => ({ name, jsonName: name, number: index + 1, label: FieldDescriptorProto_Label.OPTIONAL, type: FieldDescriptorProto_Type.MESSAGE, typeName: next })),
      }),
    );
  }
  messages.push(create(DescriptorProtoSchema, { name: `Level${depth}`, field: [{ name: 'leaf', jsonName: 'leaf', number: 1, label: FieldDescriptorProto_Label.OPTIONAL, type: FieldDescriptorProto_Type.STRING }] }));
  return create(FileDescriptorProtoSchema, {
    name: DAG_FILE,
    package: PACKAGE,
    syntax: 'proto3',
    dependency: importsChain ? [chainFile(0)] : [],
    messageType: messages,
    service: [
      {
        name: 'Dag',
        method: [
          { name: 'Echo', inputType: `.${PACKAGE}.Level0`, outputType: `.${PACKAGE}.Level0` },
          { name: 'Flood', inputType: `.${PACKAGE}.Level${depth}`, outputType: `.${PACKAGE}.Level${depth}`, serverStreaming: true },
        ],
      },
    ],
  });
}

function chain(index: number, padBytes: number): FileDescriptorProto {
  return create(FileDescriptorProtoSchema, {
    name: chainFile(index),
    package: PACKAGE,
    syntax: 'proto3',
    dependency: [chainFile(index + 1)],
    messageType: [{ name: `Pad${index}${'x'.repeat(padBytes)}` }],
  });
}

/** The last level's one field, `leaf` (string, field 1), encoded by hand. */
function leafMessage(text: string): Buffer {
  const bytes = Buffer.from(text);
  const length: number[] = [];
  for (let rest = bytes.length; ; rest >>>= 7) {
    if (rest < 0x80) {
      length.push(rest);
      break;
    }
    length.push((rest & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([0x0a, ...length]), bytes]);
}

function readLeaf(request: Buffer): string {
  // Field 1, wire type 2, a length below 128: enough for the requests the tests send.
  return request[0] === 0x0a ? request.subarray(2, 2 + request[1]!).toString() : '';
}

type ReflectionAnswer = MessageInitShape<typeof ServerReflectionResponseSchema>['messageResponse'];

const raw = { serialize: (value: Buffer) => value, deserialize: (value: Buffer) => value };

export async function startHostileReflectionPeer(options: HostileReflectionOptions = {}): Promise<HostileReflectionPeer> {
  const depth = options.depth ?? 30;
  const dag = toBinary(FileDescriptorProtoSchema, dagFile(depth, Boolean(options.endlessImports)));
  let floodSent = 0;
  let chainServed = 0;
  let markCanceled!: () => void;
  const canceled = new Promise<void>((resolve) => (markCanceled = resolve));

  const reflection = (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
    call.on('data', (bytes: Buffer) => {
      const request = fromBinary(ServerReflectionRequestSchema, bytes);
      let messageResponse: ReflectionAnswer;
      const files = (...encoded: Uint8Array[]): ReflectionAnswer => ({ case: 'fileDescriptorResponse', value: { fileDescriptorProto: encoded } });
      const asked = request.messageRequest;
      if (asked.case === 'listServices') messageResponse = { case: 'listServicesResponse', value: { service: [{ name: `${PACKAGE}.Dag` }] } };
      else if (asked.case === 'fileContainingSymbol' || (asked.case === 'fileByFilename' && asked.value === DAG_FILE)) messageResponse = files(dag);
      else if (asked.case === 'fileByFilename' && options.endlessImports && asked.value.startsWith('hostile/v1/chain')) {
        chainServed++;
        messageResponse = files(toBinary(FileDescriptorProtoSchema, chain(Number(/chain(\d+)/.exec(asked.value)![1]), options.endlessImports.padBytes)));
      } else messageResponse = { case: 'errorResponse', value: { errorCode: grpc.status.NOT_FOUND, errorMessage: 'not found' } };
      call.write(Buffer.from(toBinary(ServerReflectionResponseSchema, create(ServerReflectionResponseSchema, { originalRequest: request, messageResponse }))));
    });
    call.on('end', () => call.end());
    call.on('error', () => undefined);
  };

  const flood = (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
    const message = leafMessage(readLeaf(call.request) === 'big' ? 'x'.repeat(1024 * 1024) : 'again');
    call.on('cancelled', markCanceled);
    call.on('error', () => undefined);
    const send = () => {
      while (!call.cancelled) {
        floodSent++;
        if (!call.write(message)) {
          call.once('drain', send);
          return;
        }
      }
    };
    send();
  };

  const server = new grpc.Server();
  const method = (path: string, requestStream: boolean, responseStream: boolean) => ({
    path,
    requestStream,
    responseStream,
    requestSerialize: raw.serialize,
    requestDeserialize: raw.deserialize,
    responseSerialize: raw.serialize,
    responseDeserialize: raw.deserialize,
  });
  server.addService(
    {
      ServerReflectionInfo: method('/grpc.reflection.v1.ServerReflection/ServerReflectionInfo', true, true),
    },
    { ServerReflectionInfo: reflection },
  );
  server.addService(
    {
      Echo: method(`/${PACKAGE}.Dag/Echo`, false, false),
      Flood: method(`/${PACKAGE}.Dag/Flood`, false, true),
    },
    {
      Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => callback(null, call.request),
      Flood: flood,
    },
  );
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))));
  return {
    port,
    address: `127.0.0.1:${port}`,
    floodMessagesSent: () => floodSent,
    floodCanceled: () => canceled,
    chainFilesServed: () => chainServed,
    stop: async () => server.forceShutdown(),
  };
}
