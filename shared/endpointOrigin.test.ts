import { describe, expect, it } from 'vitest';
import { credentialOriginChange, credentialOriginText, credentialsMayGoTo, grpcEndpointUrl } from './endpointOrigin';

describe('credentialsMayGoTo', () => {
  it('allows the same scheme, host and port, whatever the path, case or default port spelling', () => {
    expect(credentialsMayGoTo('https://Agent.example.com/a2a', 'https://agent.example.com:443/other')).toBe(true);
    expect(credentialsMayGoTo(grpcEndpointUrl('127.0.0.1:50051', true), 'grpcs://127.0.0.1:50051')).toBe(true);
    expect(credentialsMayGoTo('grpc://[::1]:50051', 'grpc://[::1]:50051')).toBe(true);
  });

  it('allows an upgrade to the encrypted scheme at the same host:port', () => {
    expect(credentialsMayGoTo('grpc://127.0.0.1:5000', 'grpcs://127.0.0.1:5000')).toBe(true);
    expect(credentialsMayGoTo('http://127.0.0.1:5000', 'https://127.0.0.1:5000')).toBe(true);
    expect(credentialsMayGoTo('http://agent.example.com/', 'https://agent.example.com/a2a')).toBe(true);
    expect(credentialsMayGoTo('https://agent.example.com/', 'http://agent.example.com/a2a')).toBe(false);
    expect(credentialsMayGoTo('http://agent.example.com:8080/', 'https://agent.example.com/a2a')).toBe(false);
  });

  it('refuses another host, another port, a downgrade to plaintext, another scheme family and non-URLs', () => {
    expect(credentialsMayGoTo('https://agent.example.com', 'https://agent.example.com.evil.test')).toBe(false);
    expect(credentialsMayGoTo('https://127.0.0.1:8443', 'https://127.0.0.1:8444')).toBe(false);
    expect(credentialsMayGoTo('https://127.0.0.1:8443', 'http://127.0.0.1:8443')).toBe(false);
    expect(credentialsMayGoTo('grpcs://127.0.0.1:5000', 'grpc://127.0.0.1:5000')).toBe(false);
    expect(credentialsMayGoTo('https://127.0.0.1:5000', 'grpcs://127.0.0.1:5000')).toBe(false);
    expect(credentialsMayGoTo('https://agent.example.com', '/relative')).toBe(false);
    expect(credentialsMayGoTo('https://agent.example.com', 'https://user@agent.example.com.evil.test')).toBe(false);
  });
});

describe('credentialOriginChange', () => {
  it('names a downgrade as unencrypted and anything else as another origin', () => {
    expect(credentialOriginChange('https://a.example:8443/x', 'http://a.example:8443/y')).toBe('http://a.example:8443 is unencrypted where the credentials were saved for https://a.example:8443');
    expect(credentialOriginChange('https://a.example/x', 'https://b.example/y')).toBe('https://b.example:443 is not https://a.example:443, where the credentials were saved');
    expect(credentialOriginText('not a url')).toBeUndefined();
  });
});
