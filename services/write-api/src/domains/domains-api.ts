import { randomUUID } from 'node:crypto';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { accountOf } from '@shortlink/accounts';
import { servedSchema } from '@shortlink/http';
import {
  challengeName,
  challengeValue,
  DOMAIN_ERRORS,
  DOMAIN_LIMITS,
  domainResource,
  newChallengeToken,
  normaliseHostname,
  ownHostnameOf,
  type DomainRow,
  type DomainStore,
  type TxtLookup,
} from '@shortlink/domains';
import { excerpt } from '@shortlink/http';
import type { ServiceAddresses } from '../links/rules/self-link';
import type { RedirectorAcks } from '../links/stores/redirector-acks';
import { validateCreateDomain, validateDomainChange } from './rules/domain-body';
import {
  CREATE_DOMAIN_ROUTE,
  DELETE_DOMAIN_ROUTE,
  GET_DOMAIN_ROUTE,
  LIST_DOMAINS_ROUTE,
  UPDATE_DOMAIN_ROUTE,
  VERIFY_DOMAIN_ROUTE,
} from './domain-routes';

export interface DomainsApiDeps {
  store: DomainStore;
  /** TXT lookups on the resolvers of DNS_SERVERS (or the machine's). */
  lookupTxt: TxtLookup;
  /** The redirectors' confirmations, awaited as a link change awaits them (decision 0035). */
  redirectors: Pick<RedirectorAcks, 'expect'>;
  newToken?: () => string;
  newId?: () => string;
}

/** What the domain routes share with the other routes of the module. */
export interface DomainRouteContext {
  authenticated: onRequestAsyncHookHandler;
  service: ServiceAddresses;
  publicBaseUrl: string;
}

type HostnameParams = { Params: { hostname: string } };

/** `/api/v1/domains…` (docs/domains.md): each route names the account's own domain, or answers 404. */
export function registerDomainRoutes(app: FastifyInstance, deps: DomainsApiDeps, context: DomainRouteContext): void {
  const { authenticated, service } = context;
  const ownHostname = ownHostnameOf(context.publicBaseUrl);
  const newToken = deps.newToken ?? newChallengeToken;
  const newId = deps.newId ?? randomUUID;

  /**
   * A change every redirector holds before it is answered: notified under its id in its transaction, then awaited
   * (within the redirectors' leases), so the next request anywhere sees it; a deleted domain stops at once.
   */
  async function seenByRedirectors<T>(change: (changeId: string) => Promise<T>, made: (outcome: T) => boolean) {
    const changeId = newId();
    const expectation = deps.redirectors.expect(changeId);
    let outcome: T;
    try {
      outcome = await change(changeId);
    } catch (err) {
      expectation.cancel();
      throw err;
    }
    if (made(outcome)) await expectation.settle();
    else expectation.cancel();
    return outcome;
  }
  const isRow = (outcome: DomainRow | 'taken' | null) => outcome !== null && outcome !== 'taken';

  /** The account's domain of that hostname, in any spelling: anything else (hostile, unknown, another's) is one 404. */
  async function ownDomain(accountId: string, raw: string): Promise<DomainRow> {
    const hostname = normaliseHostname(raw);
    const domain = hostname.ok ? await deps.store.find(accountId, hostname.hostname) : null;
    if (domain === null) throw DOMAIN_ERRORS.notFound.withDetail(`This account has no domain ${excerpt(raw)}.`);
    return domain;
  }

  app.post(
    CREATE_DOMAIN_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(CREATE_DOMAIN_ROUTE) },
    async (request, reply) => {
      const validated = validateCreateDomain(request.body, ownHostname);
      if (!validated.ok) throw validated.error;
      const hostname = validated.value;
      const created = await deps.store.create(accountOf(request).id, hostname, newToken(), DOMAIN_LIMITS.perAccount);
      if (created === 'exists')
        throw DOMAIN_ERRORS.exists.withDetail(`This account added ${hostname} already.`, 'hostname');
      if (created === 'taken') {
        throw DOMAIN_ERRORS.taken.withDetail(
          `Another account verified ${hostname}; it must delete it first.`,
          'hostname',
        );
      }
      if (created === 'limit_reached') throw DOMAIN_ERRORS.limitReached;
      return reply.code(201).send(domainResource(created));
    },
  );

  app.get(
    LIST_DOMAINS_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(LIST_DOMAINS_ROUTE) },
    async (request) => ({
      domains: (await deps.store.list(accountOf(request).id)).map(domainResource),
    }),
  );

  app.get<HostnameParams>(
    GET_DOMAIN_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(GET_DOMAIN_ROUTE) },
    async (request) => domainResource(await ownDomain(accountOf(request).id, request.params.hostname)),
  );

  app.post<HostnameParams>(
    VERIFY_DOMAIN_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(VERIFY_DOMAIN_ROUTE) },
    async (request) => {
      const account = accountOf(request);
      const domain = await ownDomain(account.id, request.params.hostname);
      if (domain.verifiedAt !== null) return domainResource(domain);
      const name = challengeName(domain.hostname);
      const expected = challengeValue(domain.challengeToken);
      const answer = await deps.lookupTxt(name);
      if (answer.kind === 'failed') {
        throw DOMAIN_ERRORS.dnsUnavailable.withDetail(
          `Looking up TXT ${name} failed (${answer.reason}): DNS gave no answer, so nothing is known yet.`,
        );
      }
      if (answer.kind === 'none') {
        throw DOMAIN_ERRORS.notVerified.withDetail(
          `DNS has no TXT record at ${name}: publish one holding ${expected}, then verify again.`,
        );
      }
      if (!answer.values.includes(expected)) {
        const count = answer.values.length;
        throw DOMAIN_ERRORS.notVerified.withDetail(
          `The ${count === 1 ? 'TXT record' : `${count} TXT records`} at ${name} ${count === 1 ? 'holds' : 'hold'} no ${expected}: this claim's token is another (an old record, or another claim's?).`,
        );
      }
      const verified = await seenByRedirectors(
        (changeId) => deps.store.markVerified(account.id, domain.hostname, 'dns', changeId),
        isRow,
      );
      if (verified === 'taken') {
        throw DOMAIN_ERRORS.taken.withDetail(`Another account verified ${domain.hostname} first.`, 'hostname');
      }
      if (verified === null) throw DOMAIN_ERRORS.notFound;
      return domainResource(verified);
    },
  );

  app.patch<HostnameParams>(
    UPDATE_DOMAIN_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(UPDATE_DOMAIN_ROUTE) },
    async (request) => {
      const account = accountOf(request);
      // An unknown domain is told before a bad body: nothing about another account's domain shows through.
      const domain = await ownDomain(account.id, request.params.hostname);
      const validated = validateDomainChange(request.body, service);
      if (!validated.ok) throw validated.error;
      const changed = await seenByRedirectors(
        (changeId) => deps.store.update(account.id, domain.hostname, validated.value, changeId),
        isRow,
      );
      if (changed === null) throw DOMAIN_ERRORS.notFound;
      return domainResource(changed);
    },
  );

  app.delete<HostnameParams>(
    DELETE_DOMAIN_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(DELETE_DOMAIN_ROUTE) },
    async (request, reply) => {
      const account = accountOf(request);
      const hostname = normaliseHostname(request.params.hostname);
      const removed =
        hostname.ok &&
        (await seenByRedirectors(
          (changeId) => deps.store.remove(account.id, hostname.hostname, changeId),
          (done) => done === true,
        ));
      if (removed === 'in_use') throw DOMAIN_ERRORS.inUse;
      if (!removed) {
        throw DOMAIN_ERRORS.notFound.withDetail(`This account has no domain ${excerpt(request.params.hostname)}.`);
      }
      return reply.code(204).send();
    },
  );
}
