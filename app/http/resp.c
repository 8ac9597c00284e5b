/* resp.c: status lines, content types, cache and security headers, redirects, the error pages. */
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "http/http.h"
#include "util/log.h"

const char *resp_status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 204: return "No Content";
	case 206: return "Partial Content";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 303: return "See Other";
	case 304: return "Not Modified";
	case 307: return "Temporary Redirect";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 406: return "Not Acceptable";
	case 408: return "Request Timeout";
	case 409: return "Conflict";
	case 410: return "Gone";
	case 411: return "Length Required";
	case 413: return "Payload Too Large";
	case 414: return "URI Too Long";
	case 415: return "Unsupported Media Type";
	case 422: return "Unprocessable Content";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	}
	/* a status without a name of its own still says which side failed: a 4xx is never blamed on
	 * the server (RFC 9110 section 15: an unknown code is read as the x00 of its class) */
	if (status >= 400 && status < 500)
		return "Client Error";
	if (status >= 500 && status < 600)
		return "Server Error";
	if (status >= 300 && status < 400)
		return "Redirection";
	return status >= 200 && status < 300 ? "Success" : "Unknown Status";
}

int resp_err_status(enum err e)
{
	switch (e) {
	case OK: return 200;
	case ERR_NOTFOUND: return 404;
	case ERR_DENIED: return 403;
	case ERR_INPUT: case ERR_PARSE: return 400;
	case ERR_LIMIT: return 413;
	case ERR_TIMEOUT: return 503;
	default: return 500;
	}
}

void resp_header(struct req *r, const char *name, const char *value)
{
	/* header injection is a programmer error: values never carry CR/LF */
	if (strpbrk(value, "\r\n"))
		return;
	sb_printf(&r->hdr, "%s: %s\r\n", name, value);
}

enum err resp_begin(struct req *r, int status, const char *ctype, int cache)
{
	struct sb h;
	enum err e;

	if (r->began)
		return OK;
	r->began = 1;
	r->status = status;
	sb_init_arena(&h, r->a);
	sb_printf(&h, "Status: %d %s\r\n", status, resp_status_text(status));
	if (ctype)
		sb_printf(&h, "Content-Type: %s\r\n", ctype);
	if (cache > 0)
		sb_printf(&h, "Cache-Control: public, max-age=%d\r\n", cache);
	else
		sb_puts(&h, "Cache-Control: no-store\r\n");
	/* on every response, pages or not */
	sb_puts(&h, "Content-Security-Policy: default-src 'self'; img-src 'self' data:; "
	            "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'\r\n"
	            "X-Content-Type-Options: nosniff\r\n"
	            "X-Frame-Options: DENY\r\n"
	            "Referrer-Policy: same-origin\r\n");
	if (r->https)
		sb_puts(&h, "Strict-Transport-Security: max-age=31536000\r\n");
	sb_printf(&h, "X-Request-Id: %s\r\n", r->id);
	sb_append(&h, r->hdr.buf ? r->hdr.buf : "", r->hdr.len);
	sb_puts(&h, "\r\n");
	if (!sb_ok(&h))
		return ERR_NOMEM;
	e = r->out.write(r->out.ctx, h.buf, h.len);
	return e;
}

enum err resp_write(struct req *r, const char *p, size_t n)
{
	if (!r->began && resp_begin(r, 200, "text/html; charset=utf-8", 0) != OK)
		return ERR_IO;
	if (r->head_only || n == 0)
		return OK;
	return r->out.write(r->out.ctx, p, n);
}

enum err resp_puts(struct req *r, const char *s)
{
	return resp_write(r, s, strlen(s));
}

enum err resp_flush(struct req *r)
{
	return r->out.flush ? r->out.flush(r->out.ctx) : OK;
}

int resp_gone(struct req *r)
{
	return r->out.gone ? r->out.gone(r->out.ctx) : 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Printable ASCII other than space and backslash: what a browser keeps as written. */
static int plain(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != '\\';
}

/* What may follow the first slash: an RFC 3986 pchar, never '/', '\\', '?', '#' or '%'. */
static int seg_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("-._~!$&'()*+,;=:@", c));
}

/* The rules and the reasons for them: docs/auth.md, "Where next= may lead". */
int resp_local_path(const char *p)
{
	if (!p || p[0] != '/')
		return 0;
	if (!p[1])
		return 1;
	for (size_t i = 1; p[i]; i++) {
		unsigned char c = (unsigned char)p[i];
		int hi, lo;

		if (!plain(c))
			return 0;
		if (c != '%') {
			if (i == 1 && !seg_start(c))
				return 0;
			continue;
		}
		/* an escape is judged by the byte it stands for too ("decoded or not") */
		if ((hi = hexval(p[i + 1])) < 0 || (lo = hexval(p[i + 2])) < 0)
			return 0;
		c = (unsigned char)(hi * 16 + lo);
		if (i == 1 ? !seg_start(c) : (c < 0x80 && !plain(c)))
			return 0;
		i += 2;
	}
	return 1;
}

enum err resp_redirect(struct req *r, const char *path)
{
	/* only local paths, whoever built them: never an open redirect */
	if (!resp_local_path(path))
		path = "/";
	resp_header(r, "Location", path);
	resp_begin(r, 303, "text/plain; charset=utf-8", 0);
	return resp_puts(r, "See Other\n");
}

enum err resp_error(struct req *r, int status)
{
	struct sb b;
	const char *ko;

	switch (status) {
	case 400: ko = "요청이 올바르지 않습니다."; break;
	case 422: ko = "요청을 처리할 수 없습니다."; break;
	case 401: ko = "로그인이 필요합니다."; break;
	case 403: ko = "권한이 없습니다."; break;
	case 404: ko = "페이지를 찾을 수 없습니다."; break;
	case 405: ko = "허용되지 않는 메서드입니다."; break;
	case 413: ko = "요청이 너무 큽니다."; break;
	case 429: ko = "요청이 너무 많습니다."; break;
	case 503: ko = "잠시 후 다시 시도하세요."; break;
	default:
		status = status >= 400 && status < 600 ? status : 500;
		ko = status < 500 ? "요청을 처리할 수 없습니다." : "내부 오류가 발생했습니다.";
		break;
	}
	if (r->began) {
		log_error("error %d after output began", status);
		return OK;
	}
	/* a fixed page: the status and the request id to quote, nothing from the request */
	sb_init_arena(&b, r->a);
	sb_printf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	              "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	              "<title>%d %s</title><link rel=\"stylesheet\" href=\"/static/app.css\"></head>"
	              "<body class=\"error-page\"><main class=\"narrow\"><h1>%d %s</h1><p>%s</p>"
	              "<p class=\"muted\">request %s</p><p><a href=\"/\">askql</a></p></main></body></html>\n",
	          status, resp_status_text(status), status, resp_status_text(status), ko, r->id);
	resp_begin(r, status, "text/html; charset=utf-8", 0);
	return resp_write(r, b.buf, b.len);
}

enum err resp_json(struct req *r, int status, const cJSON *j)
{
	char *s = cJSON_PrintUnformatted(j);
	enum err e;

	if (!s)
		return ERR_NOMEM;
	resp_begin(r, status, "application/json", 0);
	e = resp_write(r, s, strlen(s));
	if (e == OK)
		e = resp_write(r, "\n", 1);
	cJSON_free(s);
	return e;
}
