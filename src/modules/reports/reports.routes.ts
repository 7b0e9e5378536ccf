import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ChannelLangParams, bearerErrors } from '../../http/schemas.js';
import { attachment, downloadFormat, XLSX_TYPE } from '../../lib/download.js';
import { reportCsv, reportFileName, reportXlsx } from './reports.download.js';
import { ReportQuery, ReportResponse } from './reports.schemas.js';
import { parseReport, reportMessage, salesReport } from './reports.service.js';

/** GET /sales-channel/v1/{slug}/{lang}/reports/sales (bearer; SPEC "Sales report", D28-D30). */
const reportsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/:lang/reports/sales',
    {
      // Other buyers' names and e-mails: in models C and D only with the server key (D40).
      // No specific rate limit (SPEC).
      config: { b2bOperation: 'report', checklistStep: 'report_read' },
      schema: {
        tags: ['Reports'],
        operationId: 'getSalesReport',
        summary: 'Sales report: the channel\'s transactions, newest first, at most 500, with a summary',
        description:
          'Filters combine. date_from/date_to are calendar days in TIMEZONE, both inclusive, at most 90 days ' +
          'apart; a lone bound reads the 90 days after (date_from) or before (date_to) it. Send ' +
          '`Accept: text/csv` or `format=csv` for the rows as CSV (UTF-8 with a byte-order mark), `Accept: ' + XLSX_TYPE + '` or `format=xlsx` ' +
          'for an XLSX workbook (typed cells, times in TIMEZONE). See docs/reports.md. Models C and D: a token from the ' +
          'server key only (a widget-key token gets 403 server_credential_required, D40).',
        params: ChannelLangParams,
        querystring: ReportQuery,
        produces: ['application/json', 'text/csv', XLSX_TYPE],
        response: { 200: ReportResponse, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const { ctx } = app;
      const report = await salesReport(ctx, request.channel!.id, request.params.lang, request.query);
      const format = downloadFormat(request.query.format, request.headers.accept);
      if (format !== 'json') {
        const { data } = parseReport(report);
        reply.header('content-disposition', attachment(reportFileName(request.channel!.slug, report.filters, format)));
        if (format === 'csv') return reply.type('text/csv; charset=utf-8').send(reportCsv(data));
        return reply.type(XLSX_TYPE).send(reportXlsx(data, ctx.config));
      }
      // The envelope of D33 around the JSON the database built: sent as is, not parsed and
      // re-serialised (500 rows). test/reports checks this text against ReportResponse.
      const message = JSON.stringify(reportMessage(report.filters, ctx.config.timezone));
      return reply
        .type('application/json; charset=utf-8')
        .send(`{"status":200,"success":true,"data":${report.json},"message":${message}}`);
    },
  );
};

export default reportsRoutes;
