/**
 * The Python side of the resident LibreOffice listener. LibreOffice's only scripting bridge from
 * outside its process is UNO, and Node has no UNO binding, so a small Python process (LibreOffice's
 * own `python3-uno`) connects to the listener and runs one conversion per JSON line on stdin,
 * answering one JSON line on stdout. It never runs macros (MacroExecutionMode NEVER_EXECUTE), never
 * updates links (UpdateDocMode NO_UPDATE), and answers a password prompt by aborting, reported as
 * `password`. (Encrypted files are normally recognised before they get here: LibreOffice 7.4
 * headless refuses an encrypted ODT without asking.)
 *
 * Kept as a string (passed with `python3 -c`) so both shells' bundles carry it without a copy step.
 */
export const UNO_BRIDGE_SCRIPT = String.raw`
import json, os, shutil, sys, time
import uno, unohelper
from com.sun.star.beans import PropertyValue
from com.sun.star.task import XInteractionHandler
from com.sun.star.connection import NoConnectException

def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p

class Interactions(unohelper.Base, XInteractionHandler):
    def __init__(self):
        self.asked_password = False
    def handle(self, request):
        kind = request.getRequest()
        name = getattr(kind, 'typeName', '') or type(kind).__name__
        if 'Password' in str(name) or 'Password' in repr(kind):
            self.asked_password = True
        for continuation in request.getContinuations():
            if continuation.supportsService('com.sun.star.task.InteractionAbort') if hasattr(continuation, 'supportsService') else False:
                continuation.select()
                return
        for continuation in request.getContinuations():
            if 'Abort' in repr(continuation):
                continuation.select()
                return

def connect(pipe, deadline):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext('com.sun.star.bridge.UnoUrlResolver', local)
    while True:
        try:
            return resolver.resolve('uno:pipe,name=%s;urp;StarOffice.ComponentContext' % pipe)
        except NoConnectException:
            if time.time() > deadline:
                raise
            time.sleep(0.1)

def family(doc):
    if doc.supportsService('com.sun.star.sheet.SpreadsheetDocument'):
        return 'calc'
    if doc.supportsService('com.sun.star.presentation.PresentationDocument'):
        return 'impress'
    if doc.supportsService('com.sun.star.drawing.DrawingDocument'):
        return 'draw'
    if doc.supportsService('com.sun.star.text.TextDocument'):
        return 'writer'
    return 'unknown'

def main():
    pipe = sys.argv[1]
    context = connect(pipe, time.time() + float(sys.argv[2]))
    desktop = context.ServiceManager.createInstanceWithContext('com.sun.star.frame.Desktop', context)
    sys.stdout.write(json.dumps({'ready': True}) + '\n')
    sys.stdout.flush()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        if request.get('quit'):
            break
        answer = {'id': request['id']}
        interactions = Interactions()
        doc = None
        try:
            props = (
                prop('Hidden', True),
                prop('ReadOnly', True),
                prop('MacroExecutionMode', 0),
                prop('UpdateDocMode', 0),
                prop('InteractionHandler', interactions),
            )
            if request.get('input_filter'):
                props = props + (prop('FilterName', request['input_filter']['name']), prop('FilterOptions', request['input_filter']['options']))
            doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(request['input']), '_blank', 0, props)
            if doc is None:
                answer['ok'] = False
                answer['error'] = 'password' if interactions.asked_password else 'load-failed'
            else:
                filters = request['filters']
                kind = family(doc)
                if kind not in filters:
                    answer['ok'] = False
                    answer['error'] = 'wrong-family'
                    answer['family'] = kind
                else:
                    doc.storeToURL(uno.systemPathToFileUrl(request['output']), (prop('FilterName', filters[kind]), prop('Overwrite', True)))
                    answer['ok'] = True
                    answer['family'] = kind
        except Exception as error:
            name = type(error).__name__
            answer['ok'] = False
            if interactions.asked_password:
                answer['error'] = 'password'
            elif 'Disposed' in name or 'RuntimeException' in name and 'Binary URP bridge' in str(error):
                answer['error'] = 'disposed'
            else:
                answer['error'] = 'failed'
            answer['message'] = '%s: %s' % (name, str(error)[:500])
        finally:
            if doc is not None:
                try:
                    doc.close(True)
                except Exception:
                    pass
        sys.stdout.write(json.dumps(answer) + '\n')
        sys.stdout.flush()
        if answer.get('error') == 'disposed':
            return
    # Asked to quit, or Retrace went away (stdin closed): LibreOffice quits cleanly, so it removes
    # its IPC pipes, and the profile goes once it has exited — whether or not Retrace still runs.
    try:
        desktop.terminate()
    except Exception:
        pass
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            os.kill(int(sys.argv[3]), 0)
        except Exception:
            break
        time.sleep(0.1)
    shutil.rmtree(sys.argv[4], ignore_errors=True)

main()
`
