# Sourced by the gostx xml tests: SMEV 3's GetResponseResponse, whose two
# signatures are the sender's (inside what SMEV signs) and SMEV's.
#   smev_send: send.xml, the sender's SendResponseRequest, its
#     SenderProvidedResponseData (Id SIGNED_BY_CALLER) followed by the empty
#     CallerInformationSystemSignature its Signature goes in (-detached -smev)
#   smev_response SIGNED: resp.xml, the GetResponseResponse SMEV delivers:
#     the Response (Id SIGNED_BY_SMEV) holding SIGNED's SenderProvidedResponseData,
#     SMEV's MessageMetadata and the sender's Signature moved into
#     SenderInformationSystemSignature, then the empty SMEVSignature SMEV's
#     Signature goes in (the shape of the messages SMEV 3 publishes)
SMEV_NS='xmlns:ns2="urn://x-artefacts-smev-gov-ru/services/message-exchange/types/1.1" xmlns="urn://x-artefacts-smev-gov-ru/services/message-exchange/types/basic/1.1"'
smev_send() {
  cat >send.xml <<X
<?xml version="1.0" encoding="UTF-8"?>
<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><ns2:SendResponseRequest $SMEV_NS><ns2:SenderProvidedResponseData Id="SIGNED_BY_CALLER"><ns2:MessageID>6b3e3d8a-3c08-11e5-95e2-d4c9eff07b77</ns2:MessageID><ns2:To>eyJzaWQiOjMxNzE0fQ==</ns2:To><MessagePrimaryContent><r:Answer xmlns:r="urn://example/answer">granted</r:Answer></MessagePrimaryContent></ns2:SenderProvidedResponseData><ns2:CallerInformationSystemSignature/></ns2:SendResponseRequest></S:Body></S:Envelope>
X
}
smev_response() {
  local data sig
  data=$(tr -d '\n' <"$1" | grep -o '<ns2:SenderProvidedResponseData .*</ns2:SenderProvidedResponseData>')
  sig=$(tr -d '\n' <"$1" | grep -o '<ds:Signature .*</ds:Signature>')
  cat >resp.xml <<X
<?xml version="1.0" encoding="UTF-8"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><ns2:GetResponseResponse $SMEV_NS><ns2:ResponseMessage><ns2:Response Id="SIGNED_BY_SMEV"><ns2:OriginalMessageId>db0486d0-3c08-11e5-95e2-d4c9eff07b77</ns2:OriginalMessageId>$data<ns2:MessageMetadata><ns2:MessageId>6b3e3d8a-3c08-11e5-95e2-d4c9eff07b77</ns2:MessageId><ns2:MessageType>RESPONSE</ns2:MessageType><ns2:Status>responseIsDelivered</ns2:Status></ns2:MessageMetadata><ns2:SenderInformationSystemSignature>$sig</ns2:SenderInformationSystemSignature></ns2:Response><ns2:SMEVSignature/></ns2:ResponseMessage></ns2:GetResponseResponse></soap:Body></soap:Envelope>
X
}
