import type { HttpKernel } from '../kernel/kernel.ts';
import type { LogStream } from '../log/logger.ts';
import type { Router } from '../routing/router.ts';
import type { Profiler } from '../debug/profiler/profiler.ts';
import type { AppConfig } from './config.ts';
import { MemorySessionStore, type SessionStore } from '../session/store.ts';
import { FirewallMap, DEFAULT_FIREWALLS, type FirewallConfig } from '../security/firewall-map.ts';
import { compileAccessControl, type AccessControlRule } from '../security/access-control.ts';
import { Signer } from '../security/signing.ts';
import { defaultBearerVerifier, type BearerVerifier, type MemberRefresher } from '../security/member-token.ts';
import type { LocaleAware } from '../listeners/locale-aware-listener.ts';
import type { TemplateRenderer } from '../listeners/template-listener.ts';
import { RoleHierarchy, type RoleHierarchyConfig } from '../security/role-hierarchy.ts';
import type { Voter } from '../security/voter.ts';

/** createApp options for the request pipeline's services; each has a safe default. */
export interface PipelineOptions {
  /** Session storage (default: a bounded memory store, SESSION_MAX_COUNT sessions, SESSION_MAX_PER_MEMBER of one member and SESSION_MAX_BYTES of data, idle at most SESSION_IDLE_SECONDS). */
  sessionStore?: SessionStore;
  /** The firewall map (default: `dev` without security for the profiler and assets, then `admin` and `main`). */
  firewalls?: readonly FirewallConfig[];
  /**
   * Symfony's `access_control`: rules tried in order on the firewalls with security, the first matching
   * one deciding (roles the member needs, `allowIf`, `requiresChannel`). Default: none.
   */
  accessControl?: readonly AccessControlRule[];
  /** Checks `Authorization: Bearer <irms_token>` (default: tokens from `signMemberToken` with APP_SECRET). */
  verifyBearerToken?: BearerVerifier;
  /**
   * Re-checks a member restored from the session (every request) or from a remember-me cookie (each
   * remember-me login), as Symfony's user provider refreshes the user. Default: none for session
   * members; a remember-me cookie's irms_token goes through `verifyBearerToken` when the app gave one
   * (so revoking the token ends the remember-me logins too).
   */
  refreshMember?: MemberRefresher;
  /**
   * Symfony's `security.role_hierarchy`: each role and the roles it includes (`{ ROLE_ADMIN: ['ROLE_EDITOR'],
   * ROLE_EDITOR: 'ROLE_API' }`), however deep. isGranted, access control and the `isGranted` and `security`
   * route options grant a member the roles its own roles reach. Default: none.
   */
  roleHierarchy?: RoleHierarchyConfig;
  /**
   * Symfony's custom voters, `{ supports(attribute, subject), voteOnAttribute(attribute, subject, member,
   * request) }`, asked after the role voters by access control, the `isGranted` and `security` route
   * options and `isGranted(request, attribute, subject)`. Default: none.
   */
  voters?: readonly Voter[];
  /** Services that follow the request locale (LocaleAwareListener). */
  localeAware?: readonly LocaleAware[];
  /** Renders the `template` route option's named templates (TemplateListener). */
  renderTemplate?: TemplateRenderer;
  /**
   * A request header whose value becomes the request id (`request.requestId`, every log line's
   * `extra.request_id`) when it is one — 1 to 128 letters, digits, `.`, `_`, `:` or `-` —
   * as Fastify's `requestIdHeader`: the id a proxy or the caller already gave the request. Default: none,
   * an id of the process's own. Only for a header set by a proxy you trust: clients choose it otherwise.
   */
  requestIdHeader?: string;
}

/** The pipeline's services, resolved. */
export interface PipelineServices {
  sessionStore: SessionStore;
  firewallMap: FirewallMap;
  /** HMAC signer over APP_SECRET (remember-me cookies, member tokens). */
  signer: Signer;
  verifyBearerToken: BearerVerifier;
  /** The refreshMember option for session members, or null. */
  refreshSessionMember: MemberRefresher | null;
  /** What re-checks a member a remember-me cookie restores, or null. */
  refreshRememberedMember: MemberRefresher | null;
  /** The role hierarchy, compiled; null without one. */
  roleHierarchy: RoleHierarchy | null;
  /** The app's voters; null without any. */
  voters: readonly Voter[] | null;
  localeAware: readonly LocaleAware[];
  renderTemplate: TemplateRenderer | null;
}

/** Builds the pipeline's services from the config and createApp options, defaults for what is not given. */
export function pipelineServices(config: AppConfig, options: PipelineOptions = {}): PipelineServices {
  const signer = new Signer(config.secret);
  return {
    sessionStore: options.sessionStore ?? new MemorySessionStore({ maxCount: config.sessionMaxCount, idleSeconds: config.sessionIdleSeconds, maxBytes: config.sessionMaxBytes, maxSessionsPerMember: config.sessionMaxPerMember }),
    firewallMap: new FirewallMap(options.firewalls ?? DEFAULT_FIREWALLS, compileAccessControl(options.accessControl, (options.voters?.length ?? 0) > 0)),
    signer,
    verifyBearerToken: options.verifyBearerToken ?? defaultBearerVerifier(signer),
    refreshSessionMember: options.refreshMember ?? null,
    refreshRememberedMember: options.refreshMember ?? tokenRefresher(options.verifyBearerToken),
    roleHierarchy: RoleHierarchy.compile(options.roleHierarchy),
    voters: options.voters !== undefined && options.voters.length > 0 ? Object.freeze([...options.voters]) : null,
    localeAware: options.localeAware ?? [],
    renderTemplate: options.renderTemplate ?? null,
  };
}

/** The app's bearer verifier applied to a remembered member's irms_token; none with the built-in verifier. */
function tokenRefresher(verify: BearerVerifier | undefined): MemberRefresher | null {
  return verify ? (member, request) => verify(member.irmsToken, request) : null;
}

/**
 * What listeners are built from: plain objects created once per app in create-app.ts and handed to
 * listener constructors. No container — the wiring is the code in listeners.ts.
 */
export interface AppServices extends Partial<PipelineServices> {
  readonly config: AppConfig;
  readonly router: Router;
  readonly logStream: LogStream;
  /** Set once the kernel exists (listeners that need it read it lazily). */
  kernel?: HttpKernel;
  /** The request profiler (debug mode only; built from PROFILER_DSN). */
  readonly profiler?: Profiler;
}
