/**
 * The plain 500 a host answers when the application failed past the kernel (a response it cannot send,
 * an error the kernel never saw): the Node adapter writes it to its socket, `app.fetch` returns it as a
 * Fetch Response. One definition, so that every host answers such a failure with the same bytes.
 */
export const INTERNAL_ERROR_BODY = 'Internal Server Error';
export const INTERNAL_ERROR_HEADERS = { 'content-type': 'text/plain; charset=UTF-8', 'cache-control': 'no-store' } as const;
