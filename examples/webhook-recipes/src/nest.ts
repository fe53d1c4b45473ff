// NestJS: NestFactory.create(…, { rawBody: true }) keeps the exact bytes in req.rawBody next to the
// parsed body; the controller hands them to the receiver.
import "reflect-metadata";
import type { RawBodyRequest } from "@nestjs/common";
import { Controller, Module, Post, Req, Res } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import type { NestExpressApplication } from "@nestjs/platform-express";
import type { Request, Response } from "express";
import type { Receiver } from "./receiver.js";

/** A Nest application with the webhook controller (not listening yet). */
export async function createNestApp(receiver: Receiver): Promise<NestExpressApplication> {
  @Controller("webhooks")
  class PaykitWebhookController {
    @Post("paykit")
    async receive(@Req() req: RawBodyRequest<Request>, @Res() res: Response): Promise<void> {
      if (!req.rawBody) {
        res.sendStatus(400); // not JSON, or rawBody is off
        return;
      }
      res.sendStatus(await receiver.fromRaw(req.rawBody, req.headers));
    }
  }

  @Module({ controllers: [PaykitWebhookController] })
  class AppModule {}

  return NestFactory.create<NestExpressApplication>(AppModule, { rawBody: true, logger: false });
}
