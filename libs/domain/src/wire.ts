/**
 * `@tollgate/domain/wire`: what crosses the wire between Tollgate and its clients (stable error codes, the
 * check routes' bodies and answers), and the only part of the domain the SDK imports. The SDK is published
 * without the domain: its build copies this module and every module it imports into the package
 * (libs/sdk/scripts/build.mjs), and refuses to build if any of them imports a package, so they import
 * nothing but each other.
 */
export * from './errors';
export * from './check-contract';
