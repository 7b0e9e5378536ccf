/**
 * A forbidden dependency: no file matching `from` may import one matching `to` (`extra`: other
 * fields of the rule, such as its scope); `comment` says why. Every rule here fails the lint.
 * @returns {import('dependency-cruiser').IForbiddenRuleType}
 */
const forbid = (name, from, to, comment, extra = {}) => ({ name, severity: 'error', comment, from, to, ...extra });

/**
 * The layers of docs/architecture.md ("Layers"), checked by `npm run lint`.
 * Foundation (src/lib, src/platform, src/http, src/db, src/config.ts, src/app-context.ts) sits below
 * the modules; only the composition roots (src/app.ts, src/server.ts, src/cli, src/demo) wire
 * modules together.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    forbid('foundation-imports-no-module', { path: '^src/(lib|platform|http|db)/|^src/(config|app-context)[.]ts$' }, { path: '^src/modules/' },
      'Shared infrastructure sits below the modules and is used by several of them; if it imported a ' +
        'module, that module could no longer use it without a cycle. Only src/app.ts, src/server.ts, ' +
        'src/cli and src/demo compose modules.'),
    forbid('no-other-module-repo-or-routes', { path: '^src/modules/([^/]+)/' }, { path: '^src/modules/([^/]+)/.*[.](repo|routes)[.]ts$', pathNot: '^src/modules/$1/' },
      "A module uses another module through its service (or its schemas' types), never its repo " +
        '(that would bypass the rules and transactions the owning service keeps) nor its routes.'),
    forbid('no-other-module-back-office', { path: '^src/modules/([^/]+)/' }, { path: '^src/modules/([^/]+)/.*[.](admin[.](routes|schemas)|dashboard)[.]tsx?$', pathNot: '^src/modules/$1/' },
      "Each module owns its back office (issue 26): its admin API routes and schemas " +
        '(<module>.admin.routes.ts, <module>.admin.schemas.ts) and its dashboard pages (<module>.dashboard.tsx), ' +
        'mounted by the admin shell from src/app.ts. Another module never imports them: it uses the ' +
        "module's service, and the shared admin API pieces of src/http/admin-api.ts."),
    forbid('modules-use-only-the-dashboard-kit-of-admin', { path: '^src/modules/', pathNot: '^src/modules/admin/' }, { path: '^src/modules/admin/', pathNot: '^src/modules/admin/dashboard/kit/' },
      "Of admin/, a module's back office imports only the dashboard kit (admin/dashboard/kit: layout and " +
        'navigation, forms, HTML, request helpers), which imports no module; accounts, organisers and ' +
        'the shell stay admin-only, so that the modules never depend on what depends on them.'),
    forbid('admin-imports-no-module', { path: '^src/modules/admin/' }, { path: '^src/modules/', pathNot: ['^src/modules/admin/', '^src/modules/tickets/email-queue[.]service[.]ts$'] },
      'admin/ keeps accounts, organisers, the audit log and the dashboard shell; every module holds its ' +
        "own back office and src/app.ts hands it to the shell, so admin/ imports no module's service " +
        '(only the e-mail queue, for the invitation e-mails of new accounts).'),
    forbid('dashboard-kit-imports-no-module', { path: '^src/modules/admin/dashboard/kit/' }, { path: '^src/modules/', pathNot: '^src/modules/admin/dashboard/kit/' },
      "The dashboard kit is imported by every module's pages: if it imported a module, that module's pages would make a cycle."),
    forbid('no-module-cycles', { path: '^src/modules/' }, { circular: true },
      'Modules depend on each other in one direction only; a cycle between two modules means ' +
        'neither can be understood, tested or changed alone.',
      { scope: 'folder' }),
    forbid('no-file-cycles', { path: '^src/' }, { circular: true },
      'A cycle between files makes load order matter and hides which file owns what.'),
    forbid('src-imports-no-browser-app', { path: '^src/' }, { path: '^(widget|checkin|designer|portal)/' },
      'The service does not build on the browser apps (widget/, checkin/, designer/, portal/): they are ' +
        'bundled for the browser by their own builds, and a constant the server and an app share lives ' +
        'in src (src/lib) for the app to import, not the other way round (issue 26).'),
    forbid('ui-kit-stands-alone', { path: '^ui/' }, { path: '^(src/(?!lib/)|widget|checkin|designer|portal|test|bench)/' },
      'The UI kit (ui/: formats, texts, proof of work, components) is shared by the widget, the portal ' +
        "(its server-rendered pages and its script) and the service's e-mails: it builds on nothing of them " +
        '(the pure rules of src/lib excepted), so that every screen can use it without pulling in another (issue 26).'),
    forbid('browser-apps-use-the-kit-not-the-service', { path: '^(widget|portal)/src/' }, { path: '^src/(?!lib/)' },
      "The browser's scripts (the widget, the portal's) share code with the service through the UI kit (ui/) " +
        'or the pure rules of src/lib, never a module or the platform: those would pull server code into a bundle.'),
    forbid('src-imports-no-test-or-bench', { path: '^src/' }, { path: '^(test|bench)/' },
      'Production code must not depend on test helpers or benchmarks.'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
