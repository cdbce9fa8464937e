import java.io.*;
import java.nio.file.*;
import javax.xml.stream.*;
import javax.xml.stream.events.*;
import com.ctc.wstx.stax.WstxInputFactory;
import com.ctc.wstx.stax.WstxOutputFactory;
import com.ctc.wstx.stax.WstxEventFactory;

// Reads XML (UTF-8) with Woodstox's event reader and writes its elements and
// text again through Woodstox's event writer, as SMEV's reference transform
// writes them: text of white space only dropped, an empty text before each
// end tag (so no <a/>). Nothing else of the transform: the input is already
// in its form (gen.sh). Usage: WoodstoxEcho IN.xml OUT
public class WoodstoxEcho {
  public static void main(String[] a) throws Exception {
    XMLEventReader r = new WstxInputFactory().createXMLEventReader(new FileInputStream(a[0]), "UTF-8");
    OutputStream os = new FileOutputStream(a[1]);
    XMLEventWriter w = new WstxOutputFactory().createXMLEventWriter(os, "UTF-8");
    XMLEventFactory f = new WstxEventFactory();
    while (r.hasNext()) {
      XMLEvent e = r.nextEvent();
      if (e.isCharacters()) { if (!e.asCharacters().getData().trim().isEmpty()) w.add(e); }
      else if (e.isStartElement()) w.add(e);
      else if (e.isEndElement()) { w.add(f.createSpace("")); w.add(e); }
    }
    w.close(); os.close();
  }
}
